/**
 * Outgoing webhooks (spec 03, Events), what is sent: the envelopes and their
 * signatures, checked by a real receiver on a real port that verifies the
 * signature and parses the envelope with the gateway's own schemas, and what
 * never fires a webhook.
 */
import { describe, expect, it } from 'vitest';
import { MessageCreatedEvent, ReplySuggestionCreatedEvent } from '../../src/platform/schemas/unified-messaging.ts';
import { sleep, startReceiver, startTestSandbox, visitorMessage } from './support.ts';
import { attempts, attemptsReach, linkedChat, RETRY_BASE_MS, verified } from './webhooks-support.ts';

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
