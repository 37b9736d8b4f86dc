/**
 * The two flows end to end over real HTTP: a connector's submit reaches the
 * platform (the sandbox) as a chat message, and an agent's reply comes back
 * through the signed webhook to the connector's deliver — once.
 */
import { describe, expect, it } from 'vitest';
import { delivered } from '../fixtures/connectors/recorder.ts';
import { until } from '../support/wait.ts';
import { RECORDER_MODULE, startTestGateway, type TestGateway } from '../support/gateway.ts';

const recorder = (name = 'desk', extra: Record<string, unknown> = {}) => ({ name, type: 'recorder', module: RECORDER_MODULE, ...extra });

async function submit(tg: TestGateway, message: Record<string, unknown>, connector = 'desk') {
  return tg.call('POST', `/connectors/${connector}/submit`, { senderId: 'ann@example.com', body: 'Hello', ...message });
}

async function chatOf(tg: TestGateway, threadKey: string, connector = 'desk'): Promise<string> {
  let chatId: string | null = null;
  await until(async () => {
    chatId = (await tg.call('GET', `/connectors/${connector}/threads/${encodeURIComponent(threadKey)}`)).body?.chatId ?? null;
    return chatId !== null;
  }, 5_000, `a chat for ${threadKey}`);
  return chatId as unknown as string;
}

async function sandboxMessages(tg: TestGateway, chatId: string) {
  const all = (await tg.sandbox.call('GET', `/_sandbox/chats/${chatId}/messages`)).body.results as { type: string; message: string; sender_type: string }[];
  return all.filter((m) => m.type === 'msg'); // not the join message
}

describe('registration', () => {
  it('creates one channel configuration per connector pointing at /webhooks/<name>, with a secret of our own', async () => {
    const tg = await startTestGateway({ connectors: [recorder('desk'), recorder('mail')] });
    const list = (await tg.sandbox.call('GET', `${tg.sandbox.um}?page_size=100`)).body.results as { reply_webhook_url: string; messaging_channel: string; id: string }[];
    expect(list.map((c) => c.reply_webhook_url).sort()).toEqual([`${tg.gateway.publicUrl}/webhooks/desk`, `${tg.gateway.publicUrl}/webhooks/mail`]);
    expect(list.every((c) => c.messaging_channel === 'recorder')).toBe(true);
    const row = (await tg.gateway.store.read.registrations.get('desk'));
    expect(row?.secret).toMatch(/^[0-9a-f]{64}$/);
    expect(list.map((c) => c.id)).toContain(row?.configId);
  });
});

describe('inbound: connector → platform', () => {
  it('a submitted message creates the chat and the message in the platform, and the thread learns its chat', async () => {
    const tg = await startTestGateway({ connectors: [recorder()] });
    const res = await submit(tg, { threadKey: 'T-1', messageId: 'm-1', body: 'My parcel is late' });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ duplicate: false, threadId: 'desk:T-1' });
    const chatId = await chatOf(tg, 'T-1');
    const messages = await sandboxMessages(tg, chatId);
    expect(messages.map((m) => m.message)).toEqual(['My parcel is late']);
  });

  it('the same external message id twice is stored and posted once', async () => {
    const tg = await startTestGateway({ connectors: [recorder()] });
    expect((await submit(tg, { threadKey: 'T-2', messageId: 'same' })).body.duplicate).toBe(false);
    expect((await submit(tg, { threadKey: 'T-2', messageId: 'same' })).body.duplicate).toBe(true);
    const chatId = await chatOf(tg, 'T-2');
    await new Promise((r) => setTimeout(r, 200));
    expect(await sandboxMessages(tg, chatId)).toHaveLength(1);
  });

  it('keeps the submitted order within a thread across many quick submits', async () => {
    const tg = await startTestGateway({ connectors: [recorder()] });
    for (let i = 0; i < 30; i++) await submit(tg, { threadKey: 'T-order', messageId: `o-${i}`, body: `message ${i}` });
    const chatId = await chatOf(tg, 'T-order');
    await until(async () => (await sandboxMessages(tg, chatId)).length === 30, 5_000, '30 messages');
    expect((await sandboxMessages(tg, chatId)).map((m) => m.message)).toEqual(Array.from({ length: 30 }, (_, i) => `message ${i}`));
  });

  it('close(threadKey) ends the session after the pending messages; the next message opens a new session', async () => {
    const tg = await startTestGateway({ connectors: [recorder()] });
    await submit(tg, { threadKey: 'T-close', messageId: 'c-1' });
    expect((await tg.call('POST', '/connectors/desk/close', { threadKey: 'T-close' })).status).toBe(202);
    const firstChat = await chatOf(tg, 'T-close');
    await until(async () => (await tg.sandbox.call('GET', `/_sandbox/chats/${firstChat}`)).body.chat?.is_ended === true, 5_000, 'the chat to end');
    // The message pending before the close reached the first chat before it ended.
    expect((await sandboxMessages(tg, firstChat)).map((m) => m.message)).toEqual(['Hello']);
    await submit(tg, { threadKey: 'T-close', messageId: 'c-2', body: 'one more thing' });
    await until(async () => (await tg.call('GET', '/connectors/desk/threads/T-close')).body.chatId !== firstChat, 5_000, 'a new chat');
    const secondChat = (await tg.call('GET', '/connectors/desk/threads/T-close')).body.chatId as string;
    await until(async () => (await sandboxMessages(tg, secondChat)).length === 1, 5_000, 'the message in the new chat');
    expect((await sandboxMessages(tg, secondChat)).map((m) => m.message)).toEqual(['one more thing']);
  });

  it('refuses a blank body with 400 naming the field, and stores nothing', async () => {
    const tg = await startTestGateway({ connectors: [recorder()] });
    const res = await submit(tg, { threadKey: 'T-bad', messageId: 'b-1', body: '   ' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'TG_SUBMIT_INVALID' });
    expect(res.body.message).toContain('body');
    expect(await tg.gateway.store.read.sql.get(`select id from inbound_messages where connector = ? and external_id = ?`, ['desk', 'b-1'])).toBeUndefined();
    expect((await tg.gateway.store.read.threads.byKey('desk', 'T-bad'))).toBeUndefined();
  });
});

describe('outbound: platform → connector', () => {
  it('an agent message reaches deliver once, with the thread, and the delivery is recorded as delivered', async () => {
    const tg = await startTestGateway({ connectors: [recorder()] });
    await submit(tg, { threadKey: 'T-out', messageId: 'x-1' });
    const chatId = await chatOf(tg, 'T-out');
    const before = delivered.length;
    const agent = await tg.sandbox.call('POST', `/_sandbox/chats/${chatId}/agent_messages`, { text: 'We are on it' });
    expect(agent.status).toBeLessThan(300);
    await until(async () => delivered.length > before, 5_000, 'a delivery');
    const got = delivered[delivered.length - 1]!;
    expect(got.event.event_type).toBe('message_created');
    expect(got.event.event_type === 'message_created' && got.event.message.message).toBe('We are on it');
    expect(got.thread?.key).toBe('T-out');
    await until(async () => (await tg.gateway.store.read.deliveries.countByStatus('desk')).delivered === 1, 5_000, 'delivered status');
    expect((await tg.gateway.store.read.deliveries.countByStatus('desk'))).toEqual({ delivered: 1 });
    expect(delivered.length - before).toBe(1);
  });

  it('a delivery that fails is retried by the job queue until it succeeds', async () => {
    const tg = await startTestGateway({ connectors: [recorder('flaky', { fail_deliveries: 1 })] });
    await submit(tg, { threadKey: 'T-retry', messageId: 'r-1' }, 'flaky');
    const chatId = await chatOf(tg, 'T-retry', 'flaky');
    await tg.sandbox.call('POST', `/_sandbox/chats/${chatId}/agent_messages`, { text: 'retry me' });
    await until(async () => (await tg.gateway.store.read.deliveries.countByStatus('flaky')).delivered === 1, 10_000, 'delivered after a retry');
    const id = ((await tg.gateway.store.read.sql.get(`select id from deliveries where connector = 'flaky'`)) as { id: number }).id;
    expect((await tg.gateway.store.read.attempts.ofDelivery(id)).map((a) => [a.attempt, a.outcome, a.error])).toEqual([
      [1, 'failed', 'Error: planned failure 1'],
      [2, 'delivered', null],
    ]);
  });

  it('a permanent failure dead-letters the delivery with the error kept', async () => {
    const tg = await startTestGateway({ connectors: [recorder('refuser', { permanent_failure: true })] });
    await submit(tg, { threadKey: 'T-dead', messageId: 'd-1' }, 'refuser');
    const chatId = await chatOf(tg, 'T-dead', 'refuser');
    await tg.sandbox.call('POST', `/_sandbox/chats/${chatId}/agent_messages`, { text: 'nobody wants me' });
    await until(async () => (await tg.gateway.store.read.deliveries.countByStatus('refuser')).dead === 1, 5_000, 'a dead delivery');
    const row = (await tg.gateway.store.read.sql.get(`select error from deliveries where connector = 'refuser' and status = 'dead'`)) as { error: string };
    expect(row.error).toContain('TG_DELIVERY_PERMANENT');
  });
});
