/**
 * Outgoing webhooks (spec 03, Events): envelopes, signatures, delivery and
 * retry rules, checked by a real receiver on a real port that verifies the
 * signature and parses the envelope with the gateway's own schemas.
 */
import { describe, expect, it } from 'vitest';
import {
  MessageCreatedEvent,
  ReplySuggestionCreatedEvent,
  WebhookEvent,
} from '../../src/platform/schemas/unified-messaging.ts';
import { verifyWebhook, type SignaturePayload } from '../../src/platform/signature.ts';
import { sleep, startReceiver, startTestSandbox, until, visitorMessage, type ReceivedWebhook, type TestSandbox } from './support.ts';
import type { WebhookAttempt } from '../../src/sandbox/model.ts';

/** The retry unit used here: retries after ~40, ~80, ~160 ms. */
const RETRY_BASE_MS = 20;
/** Long enough for every retry of RETRY_BASE_MS with max_retry_count ≤ 3 to have happened. */
const AFTER_ALL_RETRIES_MS = 500;

type Attempt = WebhookAttempt;

async function attempts(sb: TestSandbox, configId?: string): Promise<Attempt[]> {
  const query = configId === undefined ? '' : `?config_id=${configId}`;
  return (await sb.call('GET', `/_sandbox/webhook_attempts${query}`)).body.results;
}

async function attemptsReach(sb: TestSandbox, count: number, timeoutMs = 5000): Promise<Attempt[]> {
  await until(async () => (await attempts(sb)).length >= count, timeoutMs, `${count} recorded attempts`);
  return attempts(sb);
}

/** Verifies the signature and parses the envelope, as the gateway's receiver does. */
function verified(hook: ReceivedWebhook, secret: string, payload: SignaturePayload = 'timestamp.body') {
  verifyWebhook({
    secrets: [secret],
    rawBody: hook.rawBody,
    signature: hook.headers['x-svc-signature'] as string | undefined,
    timestamp: hook.headers['x-svc-timestamp'] as string | undefined,
    payload,
  });
  return WebhookEvent.parse(JSON.parse(hook.rawBody));
}

async function linkedChat(sb: TestSandbox, receiverUrl: string, fields: Record<string, unknown> = {}) {
  const config = await sb.createConfig({ reply_webhook_url: receiverUrl, messaging_channel: 'email', ...fields });
  const res = await sb.postMessages(config.id, { messages: [visitorMessage('thread-w', 'Where is my parcel?')] });
  return { config, secret: config.webhook_secret_key as string, chatId: res.body.chat_id as string };
}

describe('webhook envelopes', () => {
  it('message_created: signed, application/json, every field of spec 03, parsed by MessageCreatedEvent', async () => {
    const receiver = await startReceiver();
    const sb = await startTestSandbox({ retryBaseMs: RETRY_BASE_MS });
    const info = await sb.info();
    const { config, secret, chatId } = await linkedChat(sb, receiver.url);

    const created = await sb.call('POST', `/_sandbox/chats/${chatId}/agent_messages`, { text: 'It left today.' });
    expect(created.status).toBe(201);
    const [hook] = await receiver.waitFor(1);
    expect(hook!.headers['content-type']).toBe('application/json');
    expect(hook!.headers['x-svc-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    const event = MessageCreatedEvent.parse(verified(hook!, secret));

    expect(event).toMatchObject({
      event_type: 'message_created',
      thread_id: 'thread-w',
      chat_id: chatId,
      messaging_channel: 'email',
      channel_config_id: config.id,
    });
    expect(event.message).toEqual({
      id: created.body.id,
      type: 'msg',
      chat_id: chatId,
      room_id: sb.roomId,
      created_at: created.body.created_at,
      sender_type: 'user',
      sender_id: info.agent.id,
      sender_public_name: info.agent.public_name,
      sender_name: info.agent.name,
      sender_avatar: null,
      message: 'It left today.',
      is_encrypted: false,
      is_edited: false,
      sensitive_data_purged_at: null,
      selected_reply_suggestion_id: null,
      selected_reply_suggestion: null,
      attachments: [],
      attachment_template: null,
      response_to_message_id: null,
      response_to_attachment_id: null,
      response_to_action_id: null,
      response_to_attachment: null,
      response_to_action: null,
      response_text: null,
      response_value: null,
    });
    expect(created.body).toEqual(event.message);

    const [attempt] = await attemptsReach(sb, 1);
    expect(attempt).toMatchObject({
      config_id: config.id,
      event_type: 'message_created',
      event_id: created.body.id,
      attempt: 1,
      url: receiver.url,
      status: 200,
      error: null,
    });
  });

  it('message_created names the given agent as sender', async () => {
    const receiver = await startReceiver();
    const sb = await startTestSandbox();
    const { secret, chatId } = await linkedChat(sb, receiver.url);
    const user = (await sb.call('POST', '/_sandbox/users', { name: 'Bea Bot', public_name: 'Bea' })).body;
    await sb.call('POST', `/_sandbox/chats/${chatId}/agent_messages`, { text: 'Hello', sender_id: user.id });
    const event = MessageCreatedEvent.parse(verified((await receiver.waitFor(1))[0]!, secret));
    expect(event.message).toMatchObject({ sender_id: user.id, sender_name: 'Bea Bot', sender_public_name: 'Bea' });
    // A user of another organization may not write in the chat.
    const info = await sb.info();
    const refused = await sb.call('POST', `/_sandbox/chats/${chatId}/agent_messages`, { text: 'x', sender_id: info.foreign_agent.id });
    expect(refused.status).toBe(400);
  });

  it('reply_suggestion_created: every reply suggestion field, answering the latest visitor message by default', async () => {
    const receiver = await startReceiver();
    const sb = await startTestSandbox();
    const info = await sb.info();
    const { config, secret, chatId } = await linkedChat(sb, receiver.url);
    const later = await sb.postMessages(config.id, { messages: [visitorMessage('thread-w', 'Any news?')] });

    const res = await sb.call('POST', `/_sandbox/chats/${chatId}/reply_suggestions`, {
      suggestion: 'It is on its way.',
      relevancy_score: 0.87,
    });
    expect(res.status).toBe(201);
    const event = ReplySuggestionCreatedEvent.parse(verified((await receiver.waitFor(1))[0]!, secret));
    expect(event).toMatchObject({
      event_type: 'reply_suggestion_created',
      thread_id: 'thread-w',
      chat_id: chatId,
      messaging_channel: 'email',
      channel_config_id: config.id,
    });
    expect(event.reply_suggestion).toEqual(res.body);
    expect(event.reply_suggestion).toMatchObject({
      created_by_user_id: info.agent.id,
      updated_by_user_id: info.agent.id,
      chat_id: chatId,
      message_id: later.body.message_ids[0],
      room_id: sb.roomId,
      organization_id: sb.organizationId,
      suggestion: 'It is on its way.',
      relevancy_score: 0.87,
      target_organization: null,
    });
    expect(event.reply_suggestion.created_by_user).toMatchObject({ id: info.agent.id });
    expect((await attemptsReach(sb, 1))[0]).toMatchObject({ event_type: 'reply_suggestion_created', event_id: res.body.id });
  });

  it('a reply suggestion may name the visitor message it answers; a non-visitor message is refused', async () => {
    const receiver = await startReceiver();
    const sb = await startTestSandbox();
    const { config, chatId } = await linkedChat(sb, receiver.url);
    const first = (await sb.call('GET', `/_sandbox/chats/${chatId}/messages`)).body.results.find(
      (m: { type: string }) => m.type === 'msg',
    );
    await sb.postMessages(config.id, { messages: [visitorMessage('thread-w', 'second')] });
    const res = await sb.call('POST', `/_sandbox/chats/${chatId}/reply_suggestions`, { suggestion: 's', message_id: first.id });
    expect(res.body.message_id).toBe(first.id);
    const agent = await sb.call('POST', `/_sandbox/chats/${chatId}/agent_messages`, { text: 'hi' });
    const bad = await sb.call('POST', `/_sandbox/chats/${chatId}/reply_suggestions`, { suggestion: 's', message_id: agent.body.id });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.message_id).toBeDefined();
  });

  it('signs the raw body alone when signaturePayload is "body"', async () => {
    const receiver = await startReceiver();
    const sb = await startTestSandbox({ signaturePayload: 'body' });
    const { secret, chatId } = await linkedChat(sb, receiver.url);
    await sb.call('POST', `/_sandbox/chats/${chatId}/agent_messages`, { text: 'x' });
    const [hook] = await receiver.waitFor(1);
    expect(() => verified(hook!, secret, 'timestamp.body')).toThrow();
    expect(verified(hook!, secret, 'body').event_type).toBe('message_created');
  });

  it('signs with the current secret after PATCH changed it', async () => {
    const receiver = await startReceiver();
    const sb = await startTestSandbox();
    const { config, chatId } = await linkedChat(sb, receiver.url);
    await sb.call('PATCH', `${sb.um}/${config.id}`, { webhook_secret_key: 'rotated' });
    await sb.call('POST', `/_sandbox/chats/${chatId}/agent_messages`, { text: 'x' });
    expect(verified((await receiver.waitFor(1))[0]!, 'rotated').event_type).toBe('message_created');
  });
});

describe('what never fires a webhook', () => {
  it('visitor messages, user messages posted through unified messaging, and join messages do not; the agent reply does', async () => {
    const receiver = await startReceiver();
    const sb = await startTestSandbox();
    const info = await sb.info();
    const { config, secret, chatId } = await linkedChat(sb, receiver.url);
    await sb.postMessages(config.id, {
      messages: [
        visitorMessage('thread-w', 'visitor again'),
        visitorMessage('thread-w', 'mail from an agent', { sender_type: 'user', sender_id: info.agent.id }),
      ],
    });
    const reply = await sb.call('POST', `/_sandbox/chats/${chatId}/agent_messages`, { text: 'the only webhook' });
    const [hook] = await receiver.waitFor(1);
    await sleep(200); // anything else would have arrived by now
    expect(receiver.received).toHaveLength(1);
    expect(MessageCreatedEvent.parse(verified(hook!, secret)).message.id).toBe(reply.body.id);
    expect(await attempts(sb)).toHaveLength(1);
  });

  it('chat sessions not created through unified messaging do not', async () => {
    const receiver = await startReceiver();
    const sb = await startTestSandbox();
    await sb.createConfig({ reply_webhook_url: receiver.url });
    const plain = (await sb.call('POST', '/_sandbox/chats', {})).body;
    expect(plain.chat.chat_type).toBe('visitor');
    const res = await sb.call('POST', `/_sandbox/chats/${plain.chat.id}/agent_messages`, { text: 'hello' });
    expect(res.status).toBe(201);
    await sleep(200);
    expect(receiver.received).toHaveLength(0);
    expect(await attempts(sb)).toEqual([]);
  });
});

describe('delivery and retries', () => {
  it('retries a 500 with exponential backoff until a 2xx, re-signing the same body bytes; every attempt is recorded', async () => {
    const receiver = await startReceiver((n) => ({ status: n < 3 ? 500 : 204 }));
    const sb = await startTestSandbox({ retryBaseMs: RETRY_BASE_MS });
    const { config, secret, chatId } = await linkedChat(sb, receiver.url);
    await sb.call('POST', `/_sandbox/chats/${chatId}/agent_messages`, { text: 'x' });

    const hooks = await receiver.waitFor(3);
    const recorded = await attemptsReach(sb, 3);
    await sleep(AFTER_ALL_RETRIES_MS);
    expect(receiver.received).toHaveLength(3);
    expect(recorded.map((a) => [a.attempt, a.status])).toEqual([
      [1, 500],
      [2, 500],
      [3, 204],
    ]);
    expect(new Set(recorded.map((a) => a.event_id)).size).toBe(1);
    expect(recorded.every((a) => a.config_id === config.id && a.error === null)).toBe(true);
    expect(new Set(hooks.map((h) => h.rawBody)).size).toBe(1);
    for (const hook of hooks) verified(hook, secret);
    // The nth retry waits at least retryBase * 2^n.
    expect(hooks[1]!.receivedAt - hooks[0]!.receivedAt).toBeGreaterThanOrEqual(2 * RETRY_BASE_MS);
    expect(hooks[2]!.receivedAt - hooks[1]!.receivedAt).toBeGreaterThanOrEqual(4 * RETRY_BASE_MS);
  });

  it('retries a 4xx and a 3xx too, without following the redirect', async () => {
    const receiver = await startReceiver((n) =>
      n === 2 ? { status: 302, headers: { location: '/redirected' } } : { status: n === 1 ? 404 : 200 },
    );
    const sb = await startTestSandbox({ retryBaseMs: RETRY_BASE_MS });
    const { chatId } = await linkedChat(sb, receiver.url);
    await sb.call('POST', `/_sandbox/chats/${chatId}/agent_messages`, { text: 'x' });
    const recorded = await attemptsReach(sb, 3);
    expect(recorded.map((a) => a.status)).toEqual([404, 302, 200]);
    await sleep(AFTER_ALL_RETRIES_MS);
    expect(receiver.received.map((r) => r.path)).toEqual(['/hooks/reply', '/hooks/reply', '/hooks/reply']);
  });

  it('stops after max_retry_count retries: 1 + max_retry_count attempts in all', async () => {
    const receiver = await startReceiver(() => ({ status: 503 }));
    const sb = await startTestSandbox({ retryBaseMs: RETRY_BASE_MS });
    const { chatId } = await linkedChat(sb, receiver.url, { max_retry_count: 2 });
    await sb.call('POST', `/_sandbox/chats/${chatId}/agent_messages`, { text: 'x' });
    await attemptsReach(sb, 3);
    await sleep(AFTER_ALL_RETRIES_MS);
    expect((await attempts(sb)).map((a) => [a.attempt, a.status])).toEqual([
      [1, 503],
      [2, 503],
      [3, 503],
    ]);
    expect(receiver.received).toHaveLength(3);
  });

  it('makes a single attempt when max_retry_count is 0', async () => {
    const receiver = await startReceiver(() => ({ status: 500 }));
    const sb = await startTestSandbox({ retryBaseMs: RETRY_BASE_MS });
    const { chatId } = await linkedChat(sb, receiver.url, { max_retry_count: 0 });
    await sb.call('POST', `/_sandbox/chats/${chatId}/agent_messages`, { text: 'x' });
    await receiver.waitFor(1);
    await sleep(AFTER_ALL_RETRIES_MS);
    expect(await attempts(sb)).toHaveLength(1);
  });

  it('a receiver slower than webhookTimeoutMs is a failed attempt, then retried', async () => {
    const TIMEOUT_MS = 150;
    const receiver = await startReceiver((n) => (n === 1 ? { status: 200, delayMs: 2000 } : { status: 200 }));
    const sb = await startTestSandbox({ retryBaseMs: RETRY_BASE_MS, webhookTimeoutMs: TIMEOUT_MS });
    const { chatId } = await linkedChat(sb, receiver.url);
    await sb.call('POST', `/_sandbox/chats/${chatId}/agent_messages`, { text: 'x' });
    const recorded = await attemptsReach(sb, 2);
    expect(recorded[0]).toMatchObject({ attempt: 1, status: null });
    expect(recorded[0]!.error).toMatch(/timed out/);
    expect(recorded[0]!.duration_ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
    expect(recorded[0]!.duration_ms).toBeLessThan(1500);
    expect(recorded[1]).toMatchObject({ attempt: 2, status: 200, error: null });
  });

  it('a network error (nothing listening) is a failed attempt with the error recorded', async () => {
    const receiver = await startReceiver();
    const deadUrl = receiver.url.replace(/:\d+\//, ':9/'); // the discard port: nothing listens there
    const sb = await startTestSandbox({ retryBaseMs: RETRY_BASE_MS });
    const { chatId } = await linkedChat(sb, deadUrl, { max_retry_count: 1 });
    await sb.call('POST', `/_sandbox/chats/${chatId}/agent_messages`, { text: 'x' });
    const recorded = await attemptsReach(sb, 2);
    expect(recorded.map((a) => a.status)).toEqual([null, null]);
    expect(recorded[0]!.error).toMatch(/ECONNREFUSED/);
  });

  it('stops sending once the configuration is deleted', async () => {
    const receiver = await startReceiver(() => ({ status: 500 }));
    const sb = await startTestSandbox({ retryBaseMs: 50 });
    const { config, chatId } = await linkedChat(sb, receiver.url, { max_retry_count: 5 });
    await sb.call('POST', `/_sandbox/chats/${chatId}/agent_messages`, { text: 'x' });
    await attemptsReach(sb, 1);
    expect((await sb.call('DELETE', `${sb.um}/${config.id}`)).status).toBe(204);
    await sleep(600); // five retries would all have happened by now (≈100+200+400 ms for the first three)
    expect(receiver.received).toHaveLength(1);
    // And a new agent reply in that chat sends nothing.
    await sb.call('POST', `/_sandbox/chats/${chatId}/agent_messages`, { text: 'y' });
    await sleep(100);
    expect(receiver.received).toHaveLength(1);
  });

  it('filters recorded attempts by config_id', async () => {
    const receiver = await startReceiver();
    const sb = await startTestSandbox();
    const a = await linkedChat(sb, receiver.url);
    const b = await sb.createConfig({ reply_webhook_url: receiver.url });
    const chatB = (await sb.postMessages(b.id, { messages: [visitorMessage('other')] })).body.chat_id;
    await sb.call('POST', `/_sandbox/chats/${a.chatId}/agent_messages`, { text: 'a' });
    await sb.call('POST', `/_sandbox/chats/${chatB}/agent_messages`, { text: 'b' });
    await attemptsReach(sb, 2);
    expect((await attempts(sb, b.id)).map((x) => x.config_id)).toEqual([b.id]);
  });
});
