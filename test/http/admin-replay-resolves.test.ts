/**
 * A dead delivery replayed by an operator, and a dead inbound message
 * retried: the dead job each replaces is resolved (done, naming its
 * successor), so it is no longer offered for retry — which would send the
 * same thing twice — and the counts of dead jobs and dead records agree.
 */
import { describe, expect, it } from 'vitest';
import { delivered } from '../fixtures/connectors/recorder.ts';
import { until } from '../support/wait.ts';
import { startAdminGateway, WAIT_MS } from '../support/admin-gateway.ts';
import { RECORDER_MODULE, startTestGateway } from '../support/gateway.ts';
import { startOutageProxy } from '../support/outage-proxy.ts';
import { startTestSandbox } from '../sandbox/support.ts';

describe('a replay resolves the dead job it replaced', () => {
  it('a dead delivery replayed successfully leaves no dead job behind: counts agree and retry offers nothing of it', async () => {
    const tg = await startAdminGateway({ extra: [{ name: 'once', permanent_failures: 1 }] });
    await until(async () => (await tg.gateway.store.read.deliveries.countByStatus('once')).dead === 1, WAIT_MS, 'the dead delivery');
    const id = (await tg.admin('GET', '/deliveries?connector=once')).body.results[0].id as number;
    const deadJob = (await tg.gateway.store.read.deliveries.byId(id))!.jobId!;
    expect((await tg.admin('GET', '/jobs?status=dead')).body.results.map((j: { id: number }) => j.id)).toContain(deadJob);

    const replayed = await tg.admin('POST', `/deliveries/${id}/replay`);
    expect(replayed.status).toBe(202);
    await until(async () => (await tg.gateway.store.read.deliveries.byId(id))!.status === 'delivered', WAIT_MS, 'the replay delivered');
    expect(delivered.filter((d) => d.connector === 'once')).toHaveLength(1);

    const deadJobs = (await tg.admin('GET', '/jobs?status=dead')).body.results.map((j: { id: number }) => j.id);
    expect(deadJobs).not.toContain(deadJob);
    const counts = (await tg.admin('GET', '/counts')).body;
    expect(counts.jobs.dead).toBe(counts.deliveries.dead); // the refuser's one each
    expect(counts.deliveries.dead).toBe(1);
    const old = (await tg.admin('GET', `/jobs?status=done`)).body.results.find((j: { id: number }) => j.id === deadJob);
    expect(old.last_error).toBe(`replaced by job ${(await tg.gateway.store.read.deliveries.byId(id))!.jobId}`);
    // Retrying the old job is refused: it is not dead any more.
    expect((await tg.admin('POST', `/jobs/${deadJob}/retry`)).status).toBe(409);
  });

  it('a dead inbound message retried resolves its dead job once no dead message is left to it', async () => {
    const sandbox = await startTestSandbox();
    const proxy = await startOutageProxy(sandbox.url);
    proxy.mode = 'reset';
    const tg = await startTestGateway({ connectors: [{ name: 'desk', type: 'recorder', module: RECORDER_MODULE }], sandbox, platformUrl: proxy.url, settings: { jobs: { platform_max_attempts: 2 } } });
    await tg.call('POST', '/connectors/desk/submit', { threadKey: 'T-never', messageId: 'n-1', senderId: 'ann@example.com', body: 'nobody home' });
    const message = async () => (await tg.gateway.store.read.inbound.byId(1))!;
    await until(async () => (await message()).status === 'dead', 15_000, 'a dead message');
    const deadJob = (await tg.gateway.store.read.inbound.jobOf(1))!;
    expect((await tg.gateway.bridge.queue.countByStatus()).dead).toBe(1);

    proxy.mode = 'up';
    await until(async () => (await tg.gateway.store.read.registrations.get('desk')) !== undefined, 15_000, 'the registration');
    const job = await tg.gateway.bridge.replayer.retryInbound(1);
    await until(async () => (await message()).status === 'posted', 10_000, 'the retried message posted');
    expect((await tg.gateway.bridge.queue.countByStatus()).dead).toBe(0);
    expect(await tg.gateway.store.read.sql.get(`select status, last_error from jobs where id = ?`, [deadJob])).toEqual({ status: 'done', last_error: `replaced by job ${job}` });
  });
});
