/** The unified messaging session table of spec 03, one test per row. */
import { describe, expect, it } from 'vitest';
import { CloseSessionResponse, CreateMessagesResponse } from '../../src/platform/schemas/unified-messaging.ts';
import { chatOf, controlChat, messagesOf, suggestionIn } from './sessions-support.ts';
import { startTestSandbox, visitorMessage } from './support.ts';

describe('unified messaging session states', () => {
  it('no mapping for thread_id | POST messages | new thread_id → active session: new chat, visitor, membership and mapping; is_new_session true', async () => {
    const sb = await startTestSandbox();
    const config = await sb.createConfig({ messaging_channel: 'email' });
    const res = await sb.postMessages(config.id, {
      messages: [visitorMessage('thread-1', 'first'), visitorMessage('thread-1', 'second')],
    });
    expect(res.status).toBe(201);
    const body = CreateMessagesResponse.parse(res.body);
    expect(body).toMatchObject({ messages_created: 2, is_new_session: true });

    const chat = await chatOf(sb, body.chat_id);
    expect(chat).toMatchObject({
      chat_type: 'external',
      room_id: sb.roomId,
      room_name: 'Support',
      room_organization_id: sb.organizationId,
      messaging_channel: 'email',
      is_ended: false,
      is_waiting: true,
      is_pending: true,
      message_count: 2,
      visitor_message_count: 2,
      visitor_member_count: 1,
    });
    expect(chat.waiting_started_at).not.toBeNull();

    const control = await controlChat(sb, body.chat_id);
    expect(control).toMatchObject({ thread_id: 'thread-1', channel_config_id: config.id, mapping_id: body.mapping_id });
    expect(control.visitor.external_sender_id).toBe('customer@example.com');

    const messages = await messagesOf(sb, body.chat_id);
    // The visitor membership shows as a join message; the two texts follow in input order.
    expect(messages.map((m) => [m.type, m.sender_type, m.message])).toEqual([
      ['join', 'visitor', ''],
      ['msg', 'visitor', 'first'],
      ['msg', 'visitor', 'second'],
    ]);
    expect(messages.slice(1).map((m) => m.id)).toEqual(body.message_ids);
    expect(messages[1]!.sender_id).toBe(control.visitor.id);
  });

  it('active session | POST messages | same thread_id → same session; is_new_session false', async () => {
    const sb = await startTestSandbox();
    const config = await sb.createConfig();
    const first = (await sb.postMessages(config.id, { messages: [visitorMessage('t')] })).body;
    const second = await sb.postMessages(config.id, { messages: [visitorMessage('t', 'again')] });
    expect(second.status).toBe(201);
    expect(second.body).toMatchObject({ chat_id: first.chat_id, mapping_id: first.mapping_id, is_new_session: false });
    expect((await chatOf(sb, first.chat_id)).message_count).toBe(2);
    // A different thread is a different session.
    const other = (await sb.postMessages(config.id, { messages: [visitorMessage('u')] })).body;
    expect(other.chat_id).not.toBe(first.chat_id);
    expect(other.mapping_id).not.toBe(first.mapping_id);
  });

  it('ended session | POST messages | same thread_id → new active session, same mapping updated; is_new_session true', async () => {
    const sb = await startTestSandbox();
    const config = await sb.createConfig();
    const first = (await sb.postMessages(config.id, { messages: [visitorMessage('t')] })).body;
    await sb.call('POST', `${sb.um}/${config.id}/close_session`, { thread_id: 't' });

    const again = await sb.postMessages(config.id, { messages: [visitorMessage('t', 'reopened')] });
    expect(again.status).toBe(201);
    expect(again.body.is_new_session).toBe(true);
    expect(again.body.mapping_id).toBe(first.mapping_id);
    expect(again.body.chat_id).not.toBe(first.chat_id);
    const chat = await chatOf(sb, again.body.chat_id);
    expect(chat).toMatchObject({ is_ended: false, message_count: 1, chat_type: 'external' });
    expect((await chatOf(sb, first.chat_id)).message_count).toBe(1); // the old session is untouched
    // The mapping now leads to the new session: closing closes the new chat.
    const closed = await sb.call('POST', `${sb.um}/${config.id}/close_session`, { thread_id: 't' });
    expect(closed.body.chat_session_id).toBe(again.body.chat_id);
    // Chats of the thread, newest first.
    const chats = (await sb.call('GET', '/_sandbox/chats?thread_id=t')).body.results;
    expect(chats.map((c: { chat: { id: string } }) => c.chat.id)).toEqual([again.body.chat_id, first.chat_id]);
  });

  it('active session | POST close_session | thread mapped → ended; 200, is_ended true', async () => {
    const sb = await startTestSandbox();
    const config = await sb.createConfig();
    const { chat_id } = (await sb.postMessages(config.id, { messages: [visitorMessage('t')] })).body;
    const res = await sb.call('POST', `${sb.um}/${config.id}/close_session`, { thread_id: 't' });
    expect(res.status).toBe(200);
    expect(CloseSessionResponse.parse(res.body)).toMatchObject({ chat_session_id: chat_id, thread_id: 't', is_ended: true });
    expect(res.body.message).not.toMatch(/already/i);
    const chat = await chatOf(sb, chat_id);
    expect(chat).toMatchObject({ is_ended: true, is_waiting: false });
    expect(chat.ended_at).not.toBeNull();
  });

  it('ended session | POST close_session | thread mapped → ended; 200 with a message saying it was already closed', async () => {
    const sb = await startTestSandbox();
    const config = await sb.createConfig();
    const { chat_id } = (await sb.postMessages(config.id, { messages: [visitorMessage('t')] })).body;
    await sb.call('POST', `${sb.um}/${config.id}/close_session`, { thread_id: 't' });
    const endedAt = (await chatOf(sb, chat_id)).ended_at;
    await sb.call('POST', '/_sandbox/clock', { advance_seconds: 30 });
    const res = await sb.call('POST', `${sb.um}/${config.id}/close_session`, { thread_id: 't' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ chat_session_id: chat_id, is_ended: true });
    expect(res.body.message).toMatch(/already closed/i);
    expect((await chatOf(sb, chat_id)).ended_at).toBe(endedAt);
  });

  it('any | POST messages with close_session true → ended after the messages are created (new thread and active session)', async () => {
    const sb = await startTestSandbox();
    const config = await sb.createConfig();
    const imported = await sb.postMessages(config.id, {
      messages: [visitorMessage('old', 'one'), visitorMessage('old', 'two')],
      close_session: true,
    });
    expect(imported.status).toBe(201);
    expect(imported.body).toMatchObject({ is_new_session: true, messages_created: 2 });
    expect(await chatOf(sb, imported.body.chat_id)).toMatchObject({ is_ended: true, message_count: 2 });

    const active = (await sb.postMessages(config.id, { messages: [visitorMessage('live')] })).body;
    const closing = await sb.postMessages(config.id, { messages: [visitorMessage('live', 'bye')], close_session: true });
    expect(closing.body).toMatchObject({ chat_id: active.chat_id, is_new_session: false });
    expect(await chatOf(sb, active.chat_id)).toMatchObject({ is_ended: true, message_count: 2 });
  });

  it('active session | closing in the agent UI → ended; external sessions never close on inactivity', async () => {
    const sb = await startTestSandbox();
    const config = await sb.createConfig();
    const { chat_id } = (await sb.postMessages(config.id, { messages: [visitorMessage('t')] })).body;
    await sb.call('POST', '/_sandbox/clock', { advance_seconds: 7 * 24 * 3600 });
    expect((await chatOf(sb, chat_id)).is_ended).toBe(false);
    expect((await sb.postMessages(config.id, { messages: [visitorMessage('t')] })).body.is_new_session).toBe(false);

    const ended = await sb.call('POST', `/_sandbox/chats/${chat_id}/end`);
    expect(ended.status).toBe(200);
    expect(ended.body).toMatchObject({ id: chat_id, is_ended: true, is_waiting: false });
    const next = await sb.postMessages(config.id, { messages: [visitorMessage('t')] });
    expect(next.body.is_new_session).toBe(true);
  });

  it('skip_waiting_state true: the new session is not placed in the waiting queue', async () => {
    const sb = await startTestSandbox();
    const config = await sb.createConfig();
    const { chat_id } = (await sb.postMessages(config.id, { messages: [visitorMessage('t')], skip_waiting_state: true })).body;
    expect(await chatOf(sb, chat_id)).toMatchObject({ is_waiting: false, is_pending: false, waiting_started_at: null });
  });

  it('variables are saved on the visitor, null values ignored, later values added', async () => {
    const sb = await startTestSandbox();
    const config = await sb.createConfig();
    const { chat_id } = (
      await sb.postMessages(config.id, {
        messages: [visitorMessage('t')],
        variables: { email: 'c@example.com', plan: null },
      })
    ).body;
    await sb.postMessages(config.id, { messages: [visitorMessage('t')], variables: { plan: 'gold', email: null } });
    expect((await controlChat(sb, chat_id)).visitor.variables).toEqual({ email: 'c@example.com', plan: 'gold' });
  });

  it('message_id is stored but not used for deduplication', async () => {
    const sb = await startTestSandbox();
    const config = await sb.createConfig();
    const message = { ...visitorMessage('t'), message_id: '<same@example.com>' };
    const first = (await sb.postMessages(config.id, { messages: [message] })).body;
    const second = (await sb.postMessages(config.id, { messages: [message] })).body;
    expect(second.messages_created).toBe(1);
    expect(second.message_ids[0]).not.toBe(first.message_ids[0]);
    const stored = (await messagesOf(sb, first.chat_id)).filter((m) => m.type === 'msg');
    expect(stored.map((m) => m.message_id)).toEqual(['<same@example.com>', '<same@example.com>']);
  });

  it('a user message names a user of the organization and ends the wait', async () => {
    const sb = await startTestSandbox();
    const config = await sb.createConfig();
    const user = (await sb.call('POST', '/_sandbox/users', { name: 'Uma User' })).body;
    const res = await sb.postMessages(config.id, {
      messages: [visitorMessage('t'), visitorMessage('t', 'answered by mail', { sender_type: 'user', sender_id: user.id })],
    });
    expect(res.status).toBe(201);
    const stored = (await messagesOf(sb, res.body.chat_id)).filter((m) => m.type === 'msg');
    expect(stored[1]).toMatchObject({ sender_type: 'user', sender_id: user.id, sender_name: 'Uma User' });
    expect(await chatOf(sb, res.body.chat_id)).toMatchObject({ user_message_count: 1, is_waiting: false, user_member_count: 1 });
  });

  it('a selected reply suggestion of the same active session is accepted and stored', async () => {
    const sb = await startTestSandbox();
    const config = await sb.createConfig();
    const info = await sb.info();
    const { chat_id } = (await sb.postMessages(config.id, { messages: [visitorMessage('t')] })).body;
    const suggestionId = await suggestionIn(sb, chat_id);
    const res = await sb.postMessages(config.id, {
      messages: [visitorMessage('t', 'ok', { sender_type: 'user', sender_id: info.agent.id, selected_reply_suggestion_id: suggestionId })],
    });
    expect(res.status).toBe(201);
    const stored = (await messagesOf(sb, chat_id)).filter((m) => m.type === 'msg');
    expect(stored[1]!.selected_reply_suggestion_id).toBe(suggestionId);
  });
});
