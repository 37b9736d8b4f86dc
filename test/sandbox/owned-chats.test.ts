/**
 * The owned chat of spec 01 as the sandbox serves it: the fields after a
 * conversation, ending it with PATCH or PUT, and what an ended chat refuses.
 * Times are controlled with the sandbox clock (POST /_sandbox/clock).
 */
import { describe, expect, it } from 'vitest';
import { Chat } from '../../src/platform/schemas/chats.ts';
import { startTestSandbox, visitorMessage, type TestSandbox } from './support.ts';

const ACTIVE_WINDOW_SECONDS = 60;

async function openChat(sb: TestSandbox, options: { skipWaiting?: boolean } = {}) {
  const config = await sb.createConfig({ messaging_channel: 'helpdesk' });
  const res = await sb.postMessages(config.id, { messages: [visitorMessage('t')], skip_waiting_state: options.skipWaiting ?? false });
  return { config, chatId: res.body.chat_id as string, path: `/api/v5/orgs/${sb.organizationId}/owned_chats/${res.body.chat_id}` };
}

const advance = (sb: TestSandbox, seconds: number) => sb.call('POST', '/_sandbox/clock', { advance_seconds: seconds });
const agentSays = (sb: TestSandbox, chatId: string, text: string) =>
  sb.call('POST', `/_sandbox/chats/${chatId}/agent_messages`, { text });

describe('owned chats', () => {
  it('counts msg messages only, by sender, with member counts and the configuration’s messaging_channel', async () => {
    const sb = await startTestSandbox();
    const { config, chatId, path } = await openChat(sb);
    await advance(sb, 12);
    await agentSays(sb, chatId, 'Hi, how can I help?');
    await sb.postMessages(config.id, { messages: [visitorMessage('t', 'thanks')] });

    const res = await sb.call('GET', path);
    expect(res.status).toBe(200);
    const chat = Chat.parse(res.body);
    expect(res.body).toMatchObject({
      message_count: 3,
      user_message_count: 1,
      visitor_message_count: 2,
      has_messages: true,
      has_user_messages: true,
      has_visitor_messages: true,
      member_count: 2,
      user_member_count: 1,
      visitor_member_count: 1,
      messaging_channel: 'helpdesk',
      duration: null,
      active_duration: null,
    });
    expect(chat.chat_type).toBe('external');
    expect(res.body.visitor_wait_time).toBeCloseTo(12, 0); // 12 s of sandbox clock plus real milliseconds
    // The visitor and the agent joined with system messages, which message_count leaves out.
    const all = (await sb.call('GET', `/_sandbox/chats/${chatId}/messages`)).body.results as { type: string }[];
    expect(all.filter((m) => m.type === 'join')).toHaveLength(2);
    expect(all).toHaveLength(5);
  });

  it('an agent message ends the wait (is_waiting false, is_pending false) and keeps waiting_started_at', async () => {
    const sb = await startTestSandbox();
    const { chatId, path } = await openChat(sb);
    const before = (await sb.call('GET', path)).body;
    expect(before).toMatchObject({ is_waiting: true, is_pending: true });
    await agentSays(sb, chatId, 'On it');
    const after = (await sb.call('GET', path)).body;
    expect(after).toMatchObject({ is_waiting: false, is_pending: false, waiting_started_at: before.waiting_started_at });
  });

  it('PATCH {"is_ended": true} ends the chat: locked, not waiting, ended_at set, duration and active_duration with the 60 s rule', async () => {
    const sb = await startTestSandbox();
    const { config, chatId, path } = await openChat(sb);
    await advance(sb, 30);
    await agentSays(sb, chatId, 'answer after 30 s'); // gap 30 s: all active
    await advance(sb, 200);
    await sb.postMessages(config.id, { messages: [visitorMessage('t', 'after 200 s')] }); // gap 200 s: 60 s active
    await advance(sb, 10); // the last message's window: 10 s until the end

    const res = await sb.call('PATCH', path, { is_ended: true });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ is_ended: true, is_waiting: false, is_pending: false });
    expect(res.body.duration).toBeCloseTo(230, 0);
    expect(res.body.active_duration).toBeCloseTo(30 + ACTIVE_WINDOW_SECONDS + 10, 0);
    expect(Date.parse(res.body.ended_at) - Date.parse(res.body.created_at)).toBeGreaterThanOrEqual(240_000);
    expect((await sb.call('GET', path)).body).toMatchObject({ is_ended: true, ended_at: res.body.ended_at });
  });

  it('PUT {"is_ended": true} ends the chat too, and ending again changes nothing', async () => {
    const sb = await startTestSandbox();
    const { path } = await openChat(sb);
    const first = await sb.call('PUT', path, { is_ended: true });
    expect(first.status).toBe(200);
    expect(first.body.is_ended).toBe(true);
    await advance(sb, 5);
    const again = await sb.call('PATCH', path, { is_ended: true });
    expect(again.status).toBe(200);
    expect(again.body.ended_at).toBe(first.body.ended_at);
  });

  it('PATCH or PUT | 400 | required attribute missing', async () => {
    const sb = await startTestSandbox();
    const { path } = await openChat(sb);
    for (const method of ['PATCH', 'PUT']) {
      const res = await sb.call(method, path, {});
      expect(res.status).toBe(400);
      expect(res.body.errors.is_ended).toEqual(['This field is required.']);
    }
    expect((await sb.call('GET', path)).body.is_ended).toBe(false);
  });

  it('PATCH or PUT | 400 | payload wrong format (false, a string, malformed JSON)', async () => {
    const sb = await startTestSandbox();
    const { path } = await openChat(sb);
    for (const value of [false, 'true', 1]) {
      const res = await sb.call('PATCH', path, { is_ended: value });
      expect(res.status, String(value)).toBe(400);
      expect(res.body.errors.is_ended).toBeDefined();
    }
    expect((await sb.call('PUT', path, undefined, { raw: '{"is_ended": tru' })).status).toBe(400);
    expect((await sb.call('GET', path)).body.is_ended).toBe(false);
  });

  it('GET, PATCH | 404 | chat not found, including a chat of another organization', async () => {
    const sb = await startTestSandbox();
    const info = await sb.info();
    const foreign = (await sb.call('POST', '/_sandbox/chats', { room_id: info.foreign_room_id })).body.chat.id;
    for (const id of [crypto.randomUUID(), foreign]) {
      const path = `/api/v5/orgs/${sb.organizationId}/owned_chats/${id}`;
      expect((await sb.call('GET', path)).status).toBe(404);
      expect((await sb.call('PATCH', path, { is_ended: true })).status).toBe(404);
    }
  });

  it('answers 401 without credentials', async () => {
    const sb = await startTestSandbox();
    const { path } = await openChat(sb);
    expect((await sb.call('GET', path, undefined, { authorization: null })).status).toBe(401);
  });

  it('an ended chat refuses new agent messages and reply suggestions (409) and keeps its counts', async () => {
    const sb = await startTestSandbox();
    const { chatId, path } = await openChat(sb);
    await sb.call('PATCH', path, { is_ended: true });
    const message = await agentSays(sb, chatId, 'too late');
    expect(message.status).toBe(409);
    expect(message.body.detail).toMatch(/ended/);
    expect((await sb.call('POST', `/_sandbox/chats/${chatId}/reply_suggestions`, { suggestion: 'x' })).status).toBe(409);
    expect((await sb.call('GET', path)).body.user_message_count).toBe(0);
  });
});
