/**
 * The metrics the alerts and the dashboard of deploy/ read, beside those of
 * metrics.test.ts: messages submitted and job runs by connector, answers of
 * the gateway's own routes, dead letters, the backlog's age and whether the
 * store answers — the last with a real PostgreSQL stopped under the gateway,
 * when the scrape must still succeed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox } from '../sandbox/support.ts';
import { RECORDER_MODULE, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { metricValue as value } from '../support/metrics.ts';
import { startOutageProxy } from '../support/outage-proxy.ts';
import { PROXY_ORG, proxyAuth, proxyGateway, recordingUpstream } from '../support/proxy-upstream.ts';
import { startPostgres, type RunningPostgres } from '../support/postgres-server.ts';
import { until } from '../support/wait.ts';

const desk = { name: 'desk', type: 'recorder', module: RECORDER_MODULE };
const scrape = async (tg: TestGateway) => (await tg.call('GET', '/metrics')).text;
const submit = (tg: TestGateway, messageId: string, extra: Record<string, unknown> = {}) =>
  tg.call('POST', '/connectors/desk/submit', { threadKey: 'T', messageId, senderId: 'ann@example.com', body: `text of ${messageId}`, ...extra });

async function agentReply(tg: TestGateway): Promise<void> {
  await until(async () => (await tg.gateway.store.read.threads.byKey('desk', 'T'))?.chatId != null, 5_000, 'a chat');
  const chatId = (await tg.gateway.store.read.threads.byKey('desk', 'T'))!.chatId!;
  await tg.sandbox.call('POST', `/_sandbox/chats/${chatId}/agent_messages`, { text: 'an answer' });
}

describe('flow counters by connector', () => {
  it('count submitted messages by result, job runs by kind, connector and outcome, and answers by route and status', async () => {
    const tg = await startTestGateway({ connectors: [desk] });
    expect((await submit(tg, 'm1')).status).toBe(202);
    expect((await submit(tg, 'm1')).status).toBe(202); // the same message again: a duplicate
    await agentReply(tg);
    await until(async () => value(await scrape(tg), 'threadgate_job_runs_total{kind="connector.deliver",connector="desk",outcome="done"}') === 1, 5_000, 'a delivery');
    expect((await tg.call('GET', '/no/such/route')).status).toBe(404);

    const text = await scrape(tg);
    expect(value(text, 'threadgate_inbound_submitted_total{connector="desk",result="stored"}')).toBe(1);
    expect(value(text, 'threadgate_inbound_submitted_total{connector="desk",result="duplicate"}')).toBe(1);
    expect(value(text, 'threadgate_job_runs_total{kind="platform.post_messages",connector="desk",outcome="done"}')).toBe(1);
    expect(value(text, 'threadgate_http_responses_total{route="/connectors/:name/*",method="POST",status="202"}')).toBe(2);
    expect(value(text, 'threadgate_http_responses_total{route="(unmatched)",method="GET",status="404"}')).toBe(1);
    expect(value(text, 'threadgate_store_up')).toBe(1);
    expect(value(text, 'threadgate_dead_letters{connector="desk",record="delivery"}')).toBe(0);
    expect(value(text, 'threadgate_dead_letters{connector="desk",record="inbound"}')).toBe(0);
    expect(value(text, 'threadgate_jobs_oldest_due_seconds{kind="platform.post_messages"}')).toBe(0);
  });

  // Guards against: the proxy's calls counted twice, once by its own histogram and again as answers of Fastify's routes.
  it('leave proxied calls, a HEAD handed over by Fastify included, to the proxy histogram', async () => {
    const up = await recordingUpstream();
    const tg = await proxyGateway(up.url);
    const list = `/api/v5/orgs/${PROXY_ORG}/unified_messaging`;
    expect((await tg.call('GET', list, undefined, proxyAuth)).status).toBe(200);
    await tg.call('HEAD', list, undefined, proxyAuth);
    const text = await scrape(tg);
    expect(value(text, 'threadgate_proxy_request_seconds_count{client="crm",method="GET",template="/api/v5/orgs/<organization_id>/unified_messaging",status="200"}')).toBe(1);
    expect(text.split('\n').filter((l) => l.startsWith('threadgate_http_responses_total') && l.includes('/api'))).toEqual([]);
  });
});

describe('dead letters and the backlog', () => {
  it('count dead deliveries and dead inbound messages per connector', async () => {
    const tg = await startTestGateway({ connectors: [{ ...desk, permanent_failure: true }] });
    await submit(tg, 'm1');
    await agentReply(tg);
    // A user message must name a user of the organization; this one does not exist: the platform refuses it (400).
    await submit(tg, 'ghost', { senderType: 'user', senderId: '00000000-0000-4000-8000-000000000000' });
    await until(async () => value(await scrape(tg), 'threadgate_dead_letters{connector="desk",record="inbound"}') === 1, 10_000, 'a dead inbound message');
    await until(async () => value(await scrape(tg), 'threadgate_dead_letters{connector="desk",record="delivery"}') === 1, 10_000, 'a dead delivery');
    // The refused item dies at once; its job when the flush ends, a moment later.
    const deadJob = 'threadgate_job_runs_total{kind="platform.post_messages",connector="desk",outcome="dead"}';
    await until(async () => value(await scrape(tg), deadJob) === 1, 5_000, 'the dead post job counted');
    expect(value(await scrape(tg), 'threadgate_job_runs_total{kind="connector.deliver",connector="desk",outcome="dead"}')).toBe(1);
  });

  it('measure how long the job due longest has waited past its due time, and 0 once none is due', async () => {
    // One post at a time (platform_concurrency 1), and the first held at the platform: the second thread's job is due and waits.
    const sandbox = await startTestSandbox();
    const proxy = await startOutageProxy(sandbox.url);
    const tg = await startTestGateway({ connectors: [{ ...desk, platform_concurrency: 1 }], sandbox, platformUrl: proxy.url });
    await until(async () => (await tg.gateway.store.read.registrations.get('desk')) !== undefined, 10_000, 'registered');
    const { configId } = (await tg.gateway.store.read.registrations.get('desk'))!;
    proxy.hold = (method, url) => method === 'POST' && url.includes(configId) && url.endsWith('/messages');
    await submit(tg, 'm1');
    await until(() => proxy.held > 0, 5_000, 'the first post held');
    await tg.call('POST', '/connectors/desk/submit', { threadKey: 'T2', messageId: 'm2', senderId: 'ann@example.com', body: 'behind it' });
    const due = 'threadgate_jobs_oldest_due_seconds{kind="platform.post_messages"}';
    await new Promise((r) => setTimeout(r, 300));
    const waiting = value(await scrape(tg), due)!;
    expect(waiting).toBeGreaterThanOrEqual(0.3);
    expect(waiting).toBeLessThan(60);
    proxy.hold = undefined;
    proxy.release();
    await until(async () => value(await scrape(tg), due) === 0, 15_000, 'nothing due any more');
  });
});

describe('threadgate_store_up with the database stopped', () => {
  let own: RunningPostgres;
  beforeAll(async () => {
    own = await startPostgres();
  }, 60_000);
  afterAll(() => own?.stop());

  // Guards against: a scrape failing (500) while the store is away, so the alert on the store never sees a 0.
  it('is 0 while PostgreSQL is down, the scrape answering 200 without the store-read series, and 1 again after', { timeout: 60_000 }, async () => {
    const url = await own.createDatabase('metrics');
    const tg = await startTestGateway({ connectors: [desk], settings: { store: { url } } });
    expect(value(await scrape(tg), 'threadgate_store_up')).toBe(1);

    await own.kill();
    const down = await tg.call('GET', '/metrics');
    expect(down.status).toBe(200);
    expect(value(down.text, 'threadgate_store_up')).toBe(0);
    expect(value(down.text, 'threadgate_dead_letters{connector="desk",record="delivery"}')).toBeUndefined();
    expect(value(down.text, 'threadgate_connector_up{connector="desk"}')).toBe(0);

    await own.start();
    await until(async () => value(await scrape(tg), 'threadgate_store_up') === 1, 20_000, 'the store back');
  });
});
