/**
 * The admin API over real HTTP on a gateway with a populated delivery log,
 * acting on it: replays and retries act through the job runner with exactly
 * one new downstream effect, and every refusal is JSON naming its cause.
 */
import { describe, expect, it } from 'vitest';
import { delivered } from '../fixtures/connectors/recorder.ts';
import type { JsonResponse } from '../sandbox/support.ts';
import { until } from '../support/wait.ts';
import { ADMIN_AUTH, startAdminGateway, WAIT_MS } from '../support/admin-gateway.ts';
import { startGatewayBehindProxy } from '../support/gateway.ts';
import { conforms, refused } from './admin-api-support.ts';

/** Time for a wrongly queued second job to have run, were there one. */
const SETTLE_MS = 300;

describe('admin API: acting', () => {
  it('replays one delivery through its connector exactly once more, recorded as a replay attempt', async () => {
    const tg = await startAdminGateway();
    const id = (await tg.admin('GET', '/deliveries?status=delivered')).body.results[0].id as number;
    const before = delivered.filter((d) => d.connector === 'desk').length;
    const res = await tg.admin('POST', `/deliveries/${id}/replay`);
    expect(res.status).toBe(202);
    conforms('replayDelivery', res);
    expect(res.body.job_id).toEqual(expect.any(Number));
    await until(async () => (await tg.admin('GET', `/deliveries/${id}`)).body.attempts.length === 2 && (await tg.gateway.store.read.deliveries.byId(id))!.status === 'delivered', WAIT_MS, 'the replay');
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    expect(delivered.filter((d) => d.connector === 'desk').length - before).toBe(1);
    const shown = await tg.admin('GET', `/deliveries/${id}`);
    expect(shown.body.attempts.map((a: { replay: boolean; outcome: string; job_id: number }) => [a.replay, a.outcome])).toEqual([[false, 'delivered'], [true, 'delivered']]);
    expect(shown.body.attempts[1].job_id).toBe(res.body.job_id);

    const rejected = (await tg.admin('GET', '/deliveries?status=rejected')).body.results[0].id as number;
    refused(await tg.admin('POST', `/deliveries/${rejected}/replay`), 409, 'TG_NOT_REPLAYABLE');
    refused(await tg.admin('POST', '/deliveries/999999/replay'), 404, 'TG_RECORD_NOT_FOUND');
  });

  it('bulk replay over mixed statuses runs in the background to done with the right counts; a dry run only counts', async () => {
    const tg = await startAdminGateway();
    const follow = async (id: string) => {
      let run!: JsonResponse;
      await until(async () => (run = await tg.admin('GET', `/replays/${id}`)).body.status === 'done', WAIT_MS, `replay run ${id}`);
      conforms('getReplay', run);
      return run.body;
    };
    const dry = await tg.admin('POST', '/replays', { status: ['dead', 'rejected'], dry_run: true });
    expect(dry.status).toBe(202);
    conforms('startReplay', dry);
    expect(await follow(dry.body.id)).toMatchObject({ id: dry.body.id, status: 'done', dry_run: true, matched: 2, replayed: 0, skipped: 0, done: 0 });
    expect((await tg.gateway.store.read.deliveries.countByStatus('refuser')).dead).toBe(1);

    const started = await tg.admin('POST', '/replays', { status: 'dead,rejected,delivered', since: '1h' });
    expect(started.status).toBe(202);
    const run = await follow(started.body.id);
    expect(run).toMatchObject({ status: 'done', dry_run: false, matched: 3, replayed: 2, skipped: 1, done: 3, error: null });
    expect(run.skipped_records).toEqual([{ id: expect.any(Number), reason: expect.stringContaining('was rejected') }]);
    // The delivered one may be on its way again already (accepted): found by connector, not by status.
    const deskDeliveries = (await tg.admin('GET', '/deliveries?connector=desk')).body.results as { id: number; status: string }[];
    const [dead, ok] = [(await tg.admin('GET', '/deliveries?connector=refuser')).body.results[0].id, deskDeliveries.find((d) => d.status !== 'rejected')?.id] as number[];
    await until(async () => (await tg.gateway.store.read.attempts.ofDelivery(dead!)).length === 2 && (await tg.gateway.store.read.deliveries.byId(dead!))!.status === 'dead', WAIT_MS, 'the refuser to refuse again');
    await until(async () => (await tg.gateway.store.read.attempts.ofDelivery(ok!)).length === 2 && (await tg.gateway.store.read.deliveries.byId(ok!))!.status === 'delivered', WAIT_MS, 'desk to deliver again');

    refused(await tg.admin('POST', '/replays', {}), 400, 'TG_REQUEST_INVALID', 'body.status', /is required/);
    refused(await tg.admin('POST', '/replays', { status: [] }), 400, 'TG_REQUEST_INVALID', 'body.status', /at least one status/);
    refused(await tg.admin('POST', '/replays', { status: ['lost'] }), 400, 'TG_REQUEST_INVALID', 'body.status', /must be one of accepted, .*, got "lost"/);
    refused(await tg.admin('POST', '/replays', { status: 'dead', dryrun: true }), 400, 'TG_REQUEST_INVALID', 'body.dryrun', /not a known field/);
    refused(await tg.admin('POST', '/replays', { status: 'dead', since: 'yesterday-ish' }), 400, 'TG_REQUEST_INVALID', 'body.since', /duration ago/);
    refused(await tg.admin('POST', '/replays', '{"status":'), 400, 'TG_REQUEST_INVALID');
    refused(await tg.admin('GET', '/replays/not-a-run'), 400, 'TG_REQUEST_INVALID', 'params.id', /replay run id/);
    refused(await tg.admin('GET', '/replays/00000000-0000-4000-8000-000000000000'), 404, 'TG_RECORD_NOT_FOUND');
  });

  it('lists dead jobs and retries one, which runs again; a job that is not dead is refused', async () => {
    const tg = await startAdminGateway();
    const dead = await tg.admin('GET', '/jobs?status=dead');
    conforms('listJobs', dead);
    expect(dead.body.results).toEqual([
      expect.objectContaining({ kind: 'connector.deliver', status: 'dead', attempts: 1, last_error: expect.stringContaining('TG_DELIVERY_PERMANENT'), payload: expect.objectContaining({ connector: 'refuser' }) }),
    ]);
    const job = dead.body.results[0] as { id: number; payload: { delivery: number } };
    const retried = await tg.admin('POST', `/jobs/${job.id}/retry`);
    expect(retried.status).toBe(202);
    expect(retried.body).toEqual({ job_id: job.id });
    await until(async () => (await tg.gateway.store.read.attempts.ofDelivery(job.payload.delivery)).length === 2, WAIT_MS, 'the retried job to run');
    await until(async () => (await tg.gateway.bridge.queue.get(job.id))!.status === 'dead', WAIT_MS, 'the job to die again');

    // A delivered webhook's job is deleted once done (docs/decisions/done-deliveries-forgotten.md): a platform post's is kept.
    const done = (await tg.admin('GET', '/jobs?status=done&kind=platform.post_messages')).body.results[0].id as number;
    refused(await tg.admin('POST', `/jobs/${done}/retry`), 409, 'TG_JOB_NOT_DEAD');
    refused(await tg.admin('POST', '/jobs/999999/retry'), 404, 'TG_JOB_NOT_FOUND');
    refused(await tg.admin('GET', '/jobs?status=buried'), 400, 'TG_REQUEST_INVALID', 'query.status', /must be one of queued, running, done, dead/);
  });

  it('retries a dead inbound message, which then reaches the platform; a posted one is refused', async () => {
    const { proxy, ...tg } = await startGatewayBehindProxy({ jobs: { max_attempts: 1, platform_max_attempts: 1 }, server: { admin_token: ADMIN_AUTH.authorization.slice(7) } });
    const admin = (method: string, path: string) => tg.call(method, `/admin/api${path}`, undefined, ADMIN_AUTH);
    proxy.mode = '503';
    await tg.call('POST', '/connectors/desk/submit', { threadKey: 'T9', messageId: 'm-9', senderId: 'a@b.c', body: 'during the outage' });
    await until(async () => (await admin('GET', '/inbound?status=dead')).body.results.length === 1, WAIT_MS, 'a dead message');
    const id = (await admin('GET', '/inbound?status=dead')).body.results[0].id as number;
    expect((await admin('GET', `/inbound/${id}`)).body.attempts).toEqual([expect.objectContaining({ outcome: 'dead', status: 503 })]);

    proxy.mode = 'up';
    const retried = await admin('POST', `/inbound/${id}/retry`);
    expect(retried.status).toBe(202);
    conforms('retryInbound', retried);
    await until(async () => (await admin('GET', `/inbound/${id}`)).body.status === 'posted', WAIT_MS, 'the message posted');
    expect((await admin('GET', `/inbound/${id}`)).body.attempts.map((a: { outcome: string }) => a.outcome)).toEqual(['dead', 'posted']);
    refused(await admin('POST', `/inbound/${id}/retry`), 409, 'TG_NOT_REPLAYABLE', undefined);
    refused(await admin('POST', '/inbound/777/retry'), 404, 'TG_RECORD_NOT_FOUND');
  });
});
