/**
 * Chat fields of spec 01 as the documents give them, over real HTTP:
 * active_duration counts 60 s after each message (the last one included),
 * never past the chat's end; messaging_channel is always one of email,
 * whatsapp, webchat (webchat when a chat is seeded or created without one);
 * every decrypted message has a string sender_name (a visitor's `name`
 * variable, else "Visitor").
 */
import { describe, expect, it } from 'vitest';
import { MESSAGING_CHANNELS } from '../../src/platform/schemas/chats.ts';
import { at, startSpec01Sandbox, type Spec01Sandbox } from './spec01-support.ts';
import { visitorMessage } from './support.ts';

const T0 = '2026-05-01T10:00:00.000Z';

/** Messages at 0, 10 and 200 s: windows [0, 70] and [200, 260]. */
const MESSAGES_0_10_200 = [
  { sender: 'visitor', text: 'hello', created_at: at(T0, 0) },
  { sender: 'user', text: 'hi', created_at: at(T0, 10) },
  { sender: 'visitor', text: 'still there?', created_at: at(T0, 200) },
];

const ownedChat = async (sb: Spec01Sandbox, id: string) => (await sb.call('GET', sb.org(`/owned_chats/${id}`))).body;

describe('active_duration', () => {
  it('each message keeps the chat active for 60 s, the last one too: 0, 10, 200 s ended long after → 130', async () => {
    const sb = await startSpec01Sandbox();
    const chat = await sb.seedChat({ created_at: T0, messages: MESSAGES_0_10_200, ended_at: at(T0, 3600) });
    expect(await ownedChat(sb, chat.id)).toMatchObject({ duration: 200, active_duration: 130 });
  });

  it('is capped at the chat’s end: ended at 230 s → 100, ended at 200 s → 70; one message ended 15 s later → 15', async () => {
    const sb = await startSpec01Sandbox();
    for (const [endedAfter, expected] of [[230, 100], [200, 70], [260, 130]] as const) {
      const chat = await sb.seedChat({ created_at: T0, messages: MESSAGES_0_10_200, ended_at: at(T0, endedAfter) });
      expect((await ownedChat(sb, chat.id)).active_duration, `ended at ${endedAfter} s`).toBe(expected);
    }
    const single = await sb.seedChat({ created_at: T0, messages: [{ sender: 'visitor', text: 'x', created_at: at(T0, 5) }], ended_at: at(T0, 20) });
    expect(await ownedChat(sb, single.id)).toMatchObject({ duration: 0, active_duration: 15 });
  });

  it('ended through PATCH on the sandbox clock: the last message’s window runs to the end', async () => {
    const sb = await startSpec01Sandbox();
    const now = Date.parse((await sb.info()).now);
    const chat = await sb.seedChat({
      created_at: at(now, -300),
      messages: [
        { sender: 'visitor', text: 'a', created_at: at(now, -300) },
        { sender: 'user', text: 'b', created_at: at(now, -290) },
        { sender: 'visitor', text: 'c', created_at: at(now, -20) },
      ],
    });
    expect((await ownedChat(sb, chat.id)).active_duration).toBeNull();
    const ended = await sb.call('PATCH', sb.org(`/owned_chats/${chat.id}`), { is_ended: true });
    expect(ended.status).toBe(200);
    // 70 s for the first two, then 20 s (and the few ms the calls took) up to the end.
    expect(ended.body.active_duration).toBeGreaterThanOrEqual(90);
    expect(ended.body.active_duration).toBeLessThan(100);
  });
});

describe('messaging_channel', () => {
  it('a chat seeded without one is webchat; one given is kept; listings show the same', async () => {
    const sb = await startSpec01Sandbox();
    const plain = await sb.seedChat({ messages: [{ sender: 'visitor', text: 'x' }] });
    const mail = await sb.seedChat({ messaging_channel: 'email' });
    expect(plain.messaging_channel).toBe('webchat');
    expect((await ownedChat(sb, plain.id)).messaging_channel).toBe('webchat');
    expect((await ownedChat(sb, mail.id)).messaging_channel).toBe('email');
    const listed = (await sb.call('GET', sb.org(`/rooms/${sb.roomId}/chats`))).body.results as { id: string; messaging_channel: string }[];
    expect(listed.map((c) => [c.id, c.messaging_channel]).sort()).toEqual([[plain.id, 'webchat'], [mail.id, 'email']].sort());
  });

  it('an empty chat created without one (POST users/<user_id>/chats) is webchat, one of the documented values', async () => {
    const sb = await startSpec01Sandbox();
    const res = await sb.call('POST', `/api/v5/users/${sb.agentId}/chats`, {});
    expect(res.status).toBe(201);
    expect(res.body.messaging_channel).toBe('webchat');
    expect(MESSAGING_CHANNELS).toContain(res.body.messaging_channel);
  });
});

describe('sender_name of decrypted messages', () => {
  async function decryptedMessages(sb: Spec01Sandbox, key: string, chatId: string) {
    const res = await sb.call('GET', sb.org(`/rooms/${sb.roomId}/decrypted-chats`), undefined, { headers: { 'x-private-key': key } });
    expect(res.status).toBe(200);
    const chat = (res.body.results as { id: string; messages: { type: string; sender_type: string; sender_name: unknown; content: string }[] }[]).find((c) => c.id === chatId);
    return chat!.messages.filter((m) => m.type === 'msg');
  }

  const enableEncryption = async (sb: Spec01Sandbox) =>
    (await sb.call('POST', `/_sandbox/organizations/${sb.organizationId}/encryption`)).body.private_key_one_line as string;

  it('a visitor with a name variable (unified messaging) is named by it; the agent by the user’s name', async () => {
    const sb = await startSpec01Sandbox();
    const key = await enableEncryption(sb);
    const config = await sb.createConfig();
    const created = await sb.postMessages(config.id, { messages: [visitorMessage('named', 'Where is my parcel?')], variables: { name: 'Ann Customer' } });
    expect(created.status).toBe(201);
    await sb.call('POST', `/_sandbox/chats/${created.body.chat_id}/agent_messages`, { text: 'Looking.' });
    const messages = await decryptedMessages(sb, key, created.body.chat_id);
    expect(messages.map((m) => [m.sender_type, m.sender_name, m.content])).toEqual([
      ['visitor', 'Ann Customer', 'Where is my parcel?'],
      ['user', 'Ada Agent', 'Looking.'],
    ]);
  });

  it('a visitor without a name is "Visitor", a string, in plain and encrypted chats', async () => {
    const sb = await startSpec01Sandbox();
    const key = await enableEncryption(sb);
    for (const encrypted of [false, true]) {
      const chat = await sb.seedChat({ encrypted, messages: [{ sender: 'visitor', text: 'anonymous question' }] });
      const [message] = await decryptedMessages(sb, key, chat.id);
      expect(message, `encrypted: ${encrypted}`).toMatchObject({ sender_type: 'visitor', sender_name: 'Visitor', content: 'anonymous question' });
    }
  });
});
