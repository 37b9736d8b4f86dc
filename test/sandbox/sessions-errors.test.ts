/** The error table rows of spec 03's unified messaging POST messages and POST close_session. */
import { describe, expect, it } from 'vitest';
import { suggestionIn } from './sessions-support.ts';
import { startTestSandbox, visitorMessage } from './support.ts';

describe('POST messages errors', () => {
  const invalid: [string, (thread: string) => Record<string, unknown>, string][] = [
    ['missing required fields', (t) => ({ messages: [{ body: 'x', thread_id: t }] }), 'messages.0.sender_id'],
    ['no messages at all', () => ({ messages: [] }), 'messages'],
    ['blank body', (t) => ({ messages: [visitorMessage(t, '   ')] }), 'messages.0.body'],
    ['invalid sender_type', (t) => ({ messages: [visitorMessage(t, 'x', { sender_type: 'bot' })] }), 'messages.0.sender_type'],
    ['thread_id over 512 characters', () => ({ messages: [visitorMessage('t'.repeat(513))] }), 'messages.0.thread_id'],
    ['mismatched thread_id values', (t) => ({ messages: [visitorMessage(t), visitorMessage(`${t}-other`)] }), 'messages.1.thread_id'],
  ];
  for (const [what, build, path] of invalid) {
    it(`POST messages | 400 | ${what} → errors["${path}"], and nothing is created`, async () => {
      const sb = await startTestSandbox();
      const config = await sb.createConfig();
      const res = await sb.postMessages(config.id, build('t'));
      expect(res.status).toBe(400);
      expect(res.body.detail).toBe('Invalid payload.');
      expect(res.body.errors[path]).toBeDefined();
      expect((await sb.call('GET', '/_sandbox/chats')).body.results).toEqual([]);
    });
  }

  it('POST messages | 400 | invalid sender_id for user messages: not a UUID, unknown, or of another organization', async () => {
    const sb = await startTestSandbox();
    const config = await sb.createConfig();
    const info = await sb.info();
    for (const senderId of ['agent@example.com', crypto.randomUUID(), info.foreign_agent.id]) {
      const res = await sb.postMessages(config.id, {
        messages: [visitorMessage('t'), visitorMessage('t', 'x', { sender_type: 'user', sender_id: senderId })],
      });
      expect(res.status, senderId).toBe(400);
      expect(Object.keys(res.body.errors)).toEqual(['messages.1.sender_id']);
    }
    expect((await sb.call('GET', '/_sandbox/chats')).body.results).toEqual([]);
  });

  it('POST messages | 400 | reply suggestion used for a visitor message', async () => {
    const sb = await startTestSandbox();
    const config = await sb.createConfig();
    const { chat_id } = (await sb.postMessages(config.id, { messages: [visitorMessage('t')] })).body;
    const suggestionId = await suggestionIn(sb, chat_id);
    const res = await sb.postMessages(config.id, {
      messages: [visitorMessage('t', 'x', { selected_reply_suggestion_id: suggestionId })],
    });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.errors)).toEqual(['messages.0.selected_reply_suggestion_id']);
  });

  it('POST messages | 400 | reply suggestion used for a new conversation (new thread or reopened ended session)', async () => {
    const sb = await startTestSandbox();
    const config = await sb.createConfig();
    const info = await sb.info();
    const { chat_id } = (await sb.postMessages(config.id, { messages: [visitorMessage('t')] })).body;
    const suggestionId = await suggestionIn(sb, chat_id);
    const userMessage = (thread: string) =>
      visitorMessage(thread, 'x', { sender_type: 'user', sender_id: info.agent.id, selected_reply_suggestion_id: suggestionId });

    const fresh = await sb.postMessages(config.id, { messages: [userMessage('brand-new')] });
    expect(fresh.status).toBe(400);
    expect(Object.keys(fresh.body.errors)).toEqual(['messages.0.selected_reply_suggestion_id']);

    await sb.call('POST', `${sb.um}/${config.id}/close_session`, { thread_id: 't' });
    const reopened = await sb.postMessages(config.id, { messages: [userMessage('t')] });
    expect(reopened.status).toBe(400);
    expect(Object.keys(reopened.body.errors)).toEqual(['messages.0.selected_reply_suggestion_id']);
  });

  it('POST messages | 400 | invalid selected_reply_suggestion_id: not a UUID, unknown, or of another chat session', async () => {
    const sb = await startTestSandbox();
    const config = await sb.createConfig();
    const info = await sb.info();
    await sb.postMessages(config.id, { messages: [visitorMessage('t')] });
    const other = (await sb.postMessages(config.id, { messages: [visitorMessage('other')] })).body;
    const foreignSuggestion = await suggestionIn(sb, other.chat_id);
    for (const id of ['not-a-uuid', crypto.randomUUID(), foreignSuggestion]) {
      const res = await sb.postMessages(config.id, {
        messages: [visitorMessage('t', 'x', { sender_type: 'user', sender_id: info.agent.id, selected_reply_suggestion_id: id })],
      });
      expect(res.status, id).toBe(400);
      expect(Object.keys(res.body.errors)).toEqual(['messages.0.selected_reply_suggestion_id']);
    }
  });

  it('POST messages | 404 | configuration not found or belongs to a different organization', async () => {
    const sb = await startTestSandbox();
    const other = await startTestSandbox();
    const foreign = await other.createConfig();
    for (const id of [crypto.randomUUID(), foreign.id]) {
      const res = await sb.postMessages(id, { messages: [visitorMessage('t')] });
      expect(res.status).toBe(404);
      expect(res.body.detail).toMatch(/not found/i);
    }
  });
});

describe('POST close_session errors', () => {
  it('POST close_session | 400 | thread_id missing', async () => {
    const sb = await startTestSandbox();
    const config = await sb.createConfig();
    const res = await sb.call('POST', `${sb.um}/${config.id}/close_session`, {});
    expect(res.status).toBe(400);
    expect(res.body.errors.thread_id).toEqual(['This field is required.']);
  });

  it('POST close_session | 404 | thread ID not found, with a detail giving the reason', async () => {
    const sb = await startTestSandbox();
    const config = await sb.createConfig();
    const res = await sb.call('POST', `${sb.um}/${config.id}/close_session`, { thread_id: 'never-seen' });
    expect(res.status).toBe(404);
    expect(res.body.detail).toMatch(/thread/i);
  });

  it('POST close_session | 404 | configuration not found, with a detail giving the reason', async () => {
    const sb = await startTestSandbox();
    const res = await sb.call('POST', `${sb.um}/${crypto.randomUUID()}/close_session`, { thread_id: 't' });
    expect(res.status).toBe(404);
    expect(res.body.detail).toMatch(/configuration/i);
  });

  it('POST close_session | 404 | no session for the thread (its chat was purged), with a detail giving the reason', async () => {
    const sb = await startTestSandbox();
    const config = await sb.createConfig();
    const { chat_id, mapping_id } = (await sb.postMessages(config.id, { messages: [visitorMessage('t')] })).body;
    expect((await sb.call('DELETE', `/_sandbox/chats/${chat_id}`)).status).toBe(204);
    const res = await sb.call('POST', `${sb.um}/${config.id}/close_session`, { thread_id: 't' });
    expect(res.status).toBe(404);
    expect(res.body.detail).toMatch(/no chat session/i);
    // A new message to that thread starts a new session on the same mapping.
    const next = (await sb.postMessages(config.id, { messages: [visitorMessage('t')] })).body;
    expect(next).toMatchObject({ mapping_id, is_new_session: true });
  });
});
