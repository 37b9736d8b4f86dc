/**
 * When the platform is down, refuses a message, or lost our channel
 * configuration: nothing accepted is lost, nothing is doubled, and what can
 * never pass is dead-lettered with the platform's answer.
 */
import { describe, expect, it } from 'vitest';
import { until } from '../support/wait.ts';
import { RECORDER_MODULE, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { startOutageProxy } from '../support/outage-proxy.ts';
import { startTestSandbox } from '../sandbox/support.ts';

const desk = { name: 'desk', type: 'recorder', module: RECORDER_MODULE };
// Retries come quickly in these tests: the queue's backoff starts at 1 s, so a few seconds of outage cost a few tries.
const OUTAGE_MS = 1_500;

async function submit(tg: TestGateway, threadKey: string, messageId: string, body = `text of ${messageId}`, extra: Record<string, unknown> = {}) {
  const res = await tg.call('POST', '/connectors/desk/submit', { threadKey, messageId, senderId: 'ann@example.com', body, ...extra });
  expect(res.status).toBe(202);
  return res;
}

async function chatMessages(tg: TestGateway, threadKey: string): Promise<string[]> {
  const chatId = (await tg.call('GET', `/connectors/desk/threads/${threadKey}`)).body?.chatId as string | null;
  if (!chatId) return [];
  const all = (await tg.sandbox.call('GET', `/_sandbox/chats/${chatId}/messages`)).body.results as { type: string; message: string }[];
  return all.filter((m) => m.type === 'msg').map((m) => m.message);
}

const inboundStatus = async (tg: TestGateway) =>
  (await tg.gateway.store.read.sql.all(`select external_id, status, last_error from inbound_messages where kind = 'message' order by id`)) as {
    external_id: string; status: string; last_error: string | null;
  }[];

describe('the platform down', () => {
  it('only delays delivery: messages accepted during a 503 outage arrive afterwards, once each, in order', async () => {
    const sandbox = await startTestSandbox();
    const proxy = await startOutageProxy(sandbox.url);
    const tg = await startTestGateway({ connectors: [desk], sandbox, platformUrl: proxy.url });
    proxy.mode = '503';
    for (let i = 1; i <= 5; i++) await submit(tg, 'T-down', `d-${i}`, `message ${i}`);
    await until(async () => proxy.refused > 0, 3_000, 'a refused POST');
    expect(await chatMessages(tg, 'T-down')).toEqual([]);
    await new Promise((r) => setTimeout(r, OUTAGE_MS));
    proxy.mode = 'up';
    await until(async () => (await chatMessages(tg, 'T-down')).length >= 5, 15_000, 'the 5 messages after the outage');
    expect(await chatMessages(tg, 'T-down')).toEqual(['message 1', 'message 2', 'message 3', 'message 4', 'message 5']);
    expect((await inboundStatus(tg)).map((m) => m.status)).toEqual(['posted', 'posted', 'posted', 'posted', 'posted']);
  });

  it('a gateway started while the platform is unreachable registers once it is back, then posts what it accepted', async () => {
    const sandbox = await startTestSandbox();
    const proxy = await startOutageProxy(sandbox.url);
    proxy.mode = 'reset';
    const tg = await startTestGateway({ connectors: [desk], sandbox, platformUrl: proxy.url });
    expect((await tg.gateway.store.read.registrations.get('desk'))).toBeUndefined();
    await submit(tg, 'T-late', 'l-1', 'accepted while unregistered');
    proxy.mode = 'up';
    await until(async () => (await chatMessages(tg, 'T-late')).length === 1, 15_000, 'the message after registration');
    expect((await tg.gateway.store.read.registrations.get('desk'))?.configId).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('refusals and lost configurations', () => {
  it('a message the platform refuses (400) is dead-lettered with its answer; the thread goes on', async () => {
    const tg = await startTestGateway({ connectors: [desk] });
    // A user message must name a user of the organization; this one does not exist.
    await submit(tg, 'T-refused', 'bad-1', 'from a ghost', { senderType: 'user', senderId: '00000000-0000-4000-8000-000000000000' });
    await until(async () => (await inboundStatus(tg)).some((m) => m.status === 'dead'), 5_000, 'a dead message');
    const dead = (await inboundStatus(tg)).find((m) => m.external_id === 'bad-1')!;
    expect(dead.last_error).toMatch(/→ 400/);
    // The refused item is dead-lettered at once (the flush goes on); its job dies when the flush ends, one group later.
    const job = async () => (await tg.gateway.store.read.sql.get(`select status, last_error from jobs where kind = 'platform.post_messages'`)) as { status: string; last_error: string };
    await until(async () => (await job()).status === 'dead', 5_000, 'the job dead');
    expect((await job()).last_error).toContain('TG_JOB_PERMANENT_FAILURE');
    await submit(tg, 'T-refused', 'good-2', 'a proper one');
    await until(async () => (await chatMessages(tg, 'T-refused')).includes('a proper one'), 5_000, 'the next message');
  });

  it('one refused message in a batch dies alone: the others of the batch are posted, in order', async () => {
    const sandbox = await startTestSandbox();
    const proxy = await startOutageProxy(sandbox.url);
    const tg = await startTestGateway({ connectors: [desk], sandbox, platformUrl: proxy.url });
    proxy.mode = '503'; // hold them back so the three go in one batch
    await submit(tg, 'T-batch', 'b-1', 'first');
    await submit(tg, 'T-batch', 'b-2', 'from a ghost', { senderType: 'user', senderId: '00000000-0000-4000-8000-000000000000' });
    await submit(tg, 'T-batch', 'b-3', 'third');
    await until(async () => proxy.refused > 0, 3_000, 'a refused POST');
    proxy.mode = 'up';
    await until(async () => (await inboundStatus(tg)).every((m) => m.status !== 'pending'), 15_000, 'every message settled');
    expect((await inboundStatus(tg)).map((m) => [m.external_id, m.status])).toEqual([['b-1', 'posted'], ['b-2', 'dead'], ['b-3', 'posted']]);
    expect(await chatMessages(tg, 'T-batch')).toEqual(['first', 'third']);
  });

  it('a job that runs out of tries before the platform ever answered dead-letters its message, so an operator can retry it', async () => {
    const sandbox = await startTestSandbox();
    const proxy = await startOutageProxy(sandbox.url);
    proxy.mode = 'reset';
    const tg = await startTestGateway({ connectors: [desk], sandbox, platformUrl: proxy.url, settings: { jobs: { platform_max_attempts: 2 } } });
    await submit(tg, 'T-never', 'n-1', 'nobody home');
    await until(async () => (await inboundStatus(tg))[0]?.status === 'dead', 15_000, 'a dead message');
    expect((await inboundStatus(tg))[0]!.last_error).toContain('no channel configuration yet');
    proxy.mode = 'up';
    await until(async () => (await tg.gateway.store.read.registrations.get('desk')) !== undefined, 15_000, 'the registration');
    tg.gateway.bridge.replayer.retryInbound((await tg.gateway.store.read.inbound.byId(1))!.id);
    await until(async () => (await inboundStatus(tg))[0]?.status === 'posted', 10_000, 'the retried message posted');
  });

  it('a configuration deleted on the platform is registered again on the next 404, and the message goes through', async () => {
    const tg = await startTestGateway({ connectors: [desk] });
    const first = (await tg.gateway.store.read.registrations.get('desk'))!;
    expect((await tg.sandbox.call('DELETE', `${tg.sandbox.um}/${first.configId}`)).status).toBe(204);
    await submit(tg, 'T-reg', 'rr-1', 'after the deletion');
    await until(async () => (await chatMessages(tg, 'T-reg')).length === 1, 5_000, 'the message on the new configuration');
    const second = (await tg.gateway.store.read.registrations.get('desk'))!;
    expect(second.configId).not.toBe(first.configId);
    expect(second.secret).toBe(first.secret);
  });

  it('a restarted gateway finds its configuration by the stored id and changes nothing when nothing changed', async () => {
    const sandbox = await startTestSandbox();
    const fixed = { server: { public_url: 'https://gateway.example.test' } };
    const one = await startTestGateway({ connectors: [desk], sandbox, settings: fixed });
    const configId = (await one.gateway.store.read.registrations.get('desk'))!.configId;
    const modified = (await sandbox.call('GET', `${sandbox.um}/${configId}`)).body.modified_at as string;
    await one.gateway.close();
    const two = await startTestGateway({ connectors: [desk], sandbox, dir: one.dir, settings: fixed });
    expect((await two.gateway.store.read.registrations.get('desk'))!.configId).toBe(configId);
    expect((await sandbox.call('GET', `${sandbox.um}/${configId}`)).body.modified_at).toBe(modified);
    expect((await sandbox.call('GET', `${sandbox.um}?page_size=100`)).body.results).toHaveLength(1);
  });

  it('a restarted gateway at another address PATCHes reply_webhook_url on the same configuration', async () => {
    const sandbox = await startTestSandbox();
    const one = await startTestGateway({ connectors: [desk], sandbox });
    const configId = (await one.gateway.store.read.registrations.get('desk'))!.configId;
    await one.gateway.close();
    const two = await startTestGateway({ connectors: [desk], sandbox, dir: one.dir });
    const config = (await sandbox.call('GET', `${sandbox.um}/${configId}`)).body;
    expect(config.reply_webhook_url).toBe(`${two.gateway.publicUrl}/webhooks/desk`);
    expect((await sandbox.call('GET', `${sandbox.um}?page_size=100`)).body.results).toHaveLength(1);
  });

  it('a lost store adopts the configuration that still points at our URL, with a new secret', async () => {
    const sandbox = await startTestSandbox();
    const fixed = { server: { public_url: 'https://gateway.example.test' } };
    const one = await startTestGateway({ connectors: [desk], sandbox, settings: fixed });
    const { configId, secret } = (await one.gateway.store.read.registrations.get('desk'))!;
    await one.gateway.close();
    const two = await startTestGateway({ connectors: [desk], sandbox, settings: fixed }); // a new, empty store
    const adopted = (await two.gateway.store.read.registrations.get('desk'))!;
    expect(adopted.configId).toBe(configId);
    expect(adopted.secret).not.toBe(secret);
    expect((await sandbox.call('GET', `${sandbox.um}?page_size=100`)).body.results).toHaveLength(1);
  });
});
