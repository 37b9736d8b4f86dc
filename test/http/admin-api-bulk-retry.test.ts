/**
 * Bulk retries over the admin API, on real HTTP: `POST /jobs/retry` and
 * `POST /inbound/retry` take a zod-checked filter (`status: dead` required),
 * answer 401 without the token and 400 naming a bad field, count on a dry
 * run, and queue every dead match again — which the runner then takes to done.
 */
import { describe, expect, it } from 'vitest';
import { until } from '../support/wait.ts';
import { ADMIN_AUTH, startAdminGateway, WAIT_MS } from '../support/admin-gateway.ts';
import { startGatewayBehindProxy } from '../support/gateway.ts';
import { conforms, refused } from './admin-api-support.ts';

const BAD_FILTERS: [body: unknown, field: string | undefined, message: RegExp | undefined][] = [
  [{}, 'body.status', /is required/],
  [{ status: 'queued' }, 'body.status', /must be one of dead, got "queued"/],
  [{ status: [] }, 'body.status', /name the status: dead/],
  [{ status: 'dead', since: 'last tuesday' }, 'body.since', /duration ago/],
  [{ status: 'dead', connector: '' }, 'body.connector', /must not be empty/],
  [{ status: 'dead', dryrun: true }, 'body.dryrun', /not a known field/],
  [{ status: 'dead', dry_run: 'yes' }, 'body.dry_run', undefined],
  ['{"status":', undefined, undefined],
];

describe('admin API: bulk retry', () => {
  // Guards against dead jobs that the admin API could only retry one id at a time.
  it('POST /jobs/retry: 401 without the token, 400 naming a bad field, a dry run counts, a filter queues its dead jobs, which run to done', async () => {
    // `flaky` fails its first hand-over: with one try allowed, that delivery dies, and a retry delivers it; `refuser` refuses for good.
    const tg = await startAdminGateway({ extra: [{ name: 'flaky', fail_deliveries: 1 }], settings: { jobs: { max_attempts: 1 } } });
    refused(await tg.call('POST', '/admin/api/jobs/retry', { status: 'dead' }), 401, 'TG_ADMIN_UNAUTHORIZED');
    for (const [body, field, message] of BAD_FILTERS) refused(await tg.admin('POST', '/jobs/retry', body), 400, 'TG_REQUEST_INVALID', field, message);
    refused(await tg.admin('POST', '/jobs/retry', { status: 'dead', kind: '' }), 400, 'TG_REQUEST_INVALID', 'body.kind', /must not be empty/);

    const dry = await tg.admin('POST', '/jobs/retry', { status: 'dead', dry_run: true });
    expect(dry.status).toBe(200);
    conforms('retryJobsWhere', dry);
    expect(dry.body).toMatchObject({ dry_run: true, matched: 2, queued: 0 });
    expect(dry.body.jobs.map((j: { kind: string }) => j.kind)).toEqual(['connector.deliver', 'connector.deliver']);
    expect((await tg.gateway.bridge.queue.countByStatus()).dead).toBe(2);

    const flakyJob = (await tg.admin('GET', '/jobs?status=dead&connector=flaky')).body.results[0] as { id: number; payload: { delivery: number } };
    const res = await tg.admin('POST', '/jobs/retry', { status: ['dead'], connector: 'flaky', kind: 'connector.deliver', since: '1h' });
    expect(res.status).toBe(200);
    conforms('retryJobsWhere', res);
    expect(res.body).toEqual({ dry_run: false, matched: 1, queued: 1, jobs: [{ id: flakyJob.id, kind: 'connector.deliver' }] });
    // Done, a delivery's job is deleted (docs/decisions/done-deliveries-forgotten.md).
    await until(async () => (await tg.gateway.bridge.queue.get(flakyJob.id)) === undefined, WAIT_MS, 'the retried job done');
    expect((await tg.gateway.store.read.deliveries.byId(flakyJob.payload.delivery))!.status).toBe('delivered');
    expect((await tg.admin('GET', '/jobs?status=dead')).body.results.map((j: { payload: { connector: string } }) => j.payload.connector)).toEqual(['refuser']);
  });

  // Guards against dead inbound messages that the admin API could only retry one id at a time.
  it('POST /inbound/retry: 401 without the token, 400 naming a bad field, a dry run counts, the dead messages matched are posted', async () => {
    const { proxy, ...tg } = await startGatewayBehindProxy({ jobs: { platform_max_attempts: 1 }, server: { admin_token: ADMIN_AUTH.authorization.slice(7) } });
    const admin = (body: unknown) => tg.call('POST', '/admin/api/inbound/retry', body, ADMIN_AUTH);
    proxy.mode = '503';
    for (const [threadKey, messageId] of [['T1', 'a-1'], ['T2', 'b-1']] as const) {
      await tg.call('POST', '/connectors/desk/submit', { threadKey, messageId, senderId: 'a@b.c', body: `text of ${messageId}` });
    }
    await until(async () => (await Promise.all([1, 2].map((id) => tg.gateway.store.read.inbound.byId(id)))).every((m) => m?.status === 'dead'), WAIT_MS, 'two dead messages');
    proxy.mode = 'up';

    refused(await tg.call('POST', '/admin/api/inbound/retry', { status: 'dead' }), 401, 'TG_ADMIN_UNAUTHORIZED');
    for (const [body, field, message] of BAD_FILTERS) refused(await admin(body), 400, 'TG_REQUEST_INVALID', field, message);

    const dry = await admin({ status: 'dead', dry_run: true });
    expect(dry.status).toBe(200);
    conforms('retryInboundWhere', dry);
    expect(dry.body).toEqual({ dry_run: true, matched: 2, queued: 0, ids: [1, 2], retried: [], skipped: [] });
    expect((await tg.gateway.store.read.inbound.byId(1))!.status).toBe('dead');

    const one = await admin({ status: 'dead', thread: 'desk:T2' });
    expect(one.body).toMatchObject({ dry_run: false, matched: 1, queued: 1, ids: [2], retried: [{ id: 2, job_id: expect.any(Number) }] });
    await until(async () => (await tg.gateway.store.read.inbound.byId(2))!.status === 'posted', WAIT_MS, 'message 2 posted');
    expect((await tg.gateway.store.read.inbound.byId(1))!.status).toBe('dead');

    const rest = await admin({ status: 'dead', connector: 'desk', since: '1h' });
    conforms('retryInboundWhere', rest);
    expect(rest.body).toMatchObject({ matched: 1, queued: 1, ids: [1] });
    await until(async () => (await tg.gateway.store.read.inbound.byId(1))!.status === 'posted', WAIT_MS, 'message 1 posted');
    // The job completes in its own commit, after the one that marked the message posted.
    await until(async () => (await tg.gateway.bridge.queue.get(rest.body.retried[0].job_id))?.status === 'done', WAIT_MS, 'the retry job done');
  });
});
