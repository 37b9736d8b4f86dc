/**
 * The admin API over real HTTP on a gateway with a populated delivery log:
 * the token guards every route but the OpenAPI document; lists filter and
 * page like the CLI; replays and retries act through the job runner with
 * exactly one new downstream effect; every refusal is JSON naming its cause;
 * the OpenAPI document lists every route and its schemas match the answers.
 */
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it, onTestFinished } from 'vitest';
import { Settings } from '../../src/config/schema.ts';
import { buildApp } from '../../src/http/app.ts';
import { ADMIN_ROUTES } from '../../src/http/admin/index.ts';
import { createLogger } from '../../src/logger.ts';
import { openStore } from '../../src/store/database.ts';
import { delivered } from '../fixtures/connectors/recorder.ts';
import { startTestSandbox, until, type JsonResponse } from '../sandbox/support.ts';
import { ADMIN_AUTH, startAdminGateway, WAIT_MS } from '../support/admin-gateway.ts';
import { RECORDER_MODULE, startTestGateway } from '../support/gateway.ts';
import { startOutageProxy } from '../support/outage-proxy.ts';
import { tempDir } from '../support/temp-dir.ts';

/** Time for a wrongly queued second job to have run, were there one. */
const SETTLE_MS = 300;
const STACK_LINE = /^\s+at .+[:(]/m;

/** The answer matches the zod schema the OpenAPI document publishes for the operation. */
function conforms(operationId: string, res: JsonResponse): void {
  const route = ADMIN_ROUTES.find((r) => r.operationId === operationId);
  expect(route, operationId).toBeDefined();
  const parsed = route!.response.safeParse(res.body);
  expect(parsed.error?.issues ?? [], `${operationId} answer vs its schema`).toEqual([]);
}

/** A 4xx JSON error body with `code`, no stack, and (for 400) the field named. */
function refused(res: JsonResponse, status: number, code: string, field?: string, message?: string | RegExp): void {
  expect(res.status, res.text).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.body.code).toBe(code);
  expect(res.text).not.toMatch(STACK_LINE);
  if (field) {
    const named = (res.body.errors as { path: string; message: string }[]).find((e) => e.path === field);
    expect(named, `an error naming ${field} in ${res.text}`).toBeDefined();
    if (message) expect(named!.message).toMatch(message);
  }
}

describe('admin API: access', () => {
  it('answers 401 JSON without the token, with a wrong one or another scheme; the OpenAPI document is public', async () => {
    const tg = await startAdminGateway();
    for (const headers of [{}, { authorization: 'Bearer not-the-token-at-all' }, { authorization: `Basic ${ADMIN_AUTH.authorization.slice(7)}` }] as Record<string, string>[]) {
      for (const [method, path] of [['GET', '/deliveries'], ['GET', '/counts'], ['POST', '/deliveries/1/replay'], ['POST', '/replays']] as const) {
        const res = await tg.call(method, `/admin/api${path}`, undefined, headers);
        refused(res, 401, 'TG_ADMIN_UNAUTHORIZED');
        expect(res.headers['www-authenticate']).toBe('Bearer realm="threadgate admin"');
      }
    }
    // The scheme is case-insensitive; the token is not.
    expect((await tg.call('GET', '/admin/api/counts', undefined, { authorization: ADMIN_AUTH.authorization.replace('Bearer', 'bearer') })).status).toBe(200);
    expect((await tg.call('GET', '/admin/api/counts', undefined, { authorization: ADMIN_AUTH.authorization.toUpperCase() })).status).toBe(401);
    expect((await tg.call('GET', '/admin/api/openapi.json')).status).toBe(200);
    const page = await tg.call('GET', '/admin');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toContain("connect-src 'self'");
  });

  it('is off without server.admin_token: no /admin routes, and one info line saying so', async () => {
    const lines: string[] = [];
    const logger = createLogger('info', new Writable({ write: (chunk: Buffer, _e, done) => (lines.push(chunk.toString()), done()) }));
    const store = openStore({ path: join(tempDir(), 'bare.db') });
    onTestFinished(() => store.close());
    const app = buildApp({ settings: Settings.parse({}), store, logger });
    onTestFinished(() => app.close());
    for (const url of ['/admin', '/admin/api/counts', '/admin/api/openapi.json']) {
      const res = await app.inject({ method: 'GET', url, headers: ADMIN_AUTH });
      expect(res.statusCode).toBe(404);
      expect(res.json().code).toBe('TG_NOT_FOUND');
    }
    const off = lines.map((l) => JSON.parse(l) as { level: number; msg: string }).filter((l) => /admin API/.test(l.msg));
    expect(off).toEqual([expect.objectContaining({ level: 30, msg: expect.stringContaining('admin API and page are off: set server.admin_token') })]);
  });
});

describe('admin API: reading the log', () => {
  it('lists deliveries newest first with the CLI filters and pages with next_before', async () => {
    const tg = await startAdminGateway();
    const all = await tg.admin('GET', '/deliveries');
    expect(all.status).toBe(200);
    conforms('listDeliveries', all);
    expect(all.body.results.map((d: { status: string }) => d.status)).toEqual(['rejected', 'dead', 'delivered']);
    expect(all.body.next_before).toBeNull();
    const ids = all.body.results.map((d: { id: number }) => d.id) as number[];

    const statuses = async (query: string) => (await tg.admin('GET', `/deliveries?${query}`)).body.results.map((d: { connector: string; status: string }) => `${d.connector}:${d.status}`);
    expect(await statuses('status=dead')).toEqual(['refuser:dead']);
    expect(await statuses('connector=desk&status=delivered,rejected')).toEqual(['desk:rejected', 'desk:delivered']);
    expect(await statuses('status=delivered&status=dead')).toEqual(['refuser:dead', 'desk:delivered']);
    expect(await statuses('since=1h&event=message_created')).toHaveLength(2);
    expect(await statuses(`since=${encodeURIComponent(new Date(Date.now() - 60_000).toISOString())}`)).toHaveLength(3);
    expect(await statuses('until=2000-01-01T00:00:00Z')).toEqual([]);
    expect(await statuses('thread=refuser:T1')).toEqual(['refuser:dead']);

    // The cursor: one per page, each page's next_before leading to the next, null on the last.
    const seen: number[] = [];
    let before: number | null | undefined;
    for (let pages = 0; before !== null; pages += 1) {
      expect(pages).toBeLessThan(4);
      const page = await tg.admin('GET', `/deliveries?limit=1${before ? `&before=${before}` : ''}`);
      seen.push(...page.body.results.map((d: { id: number }) => d.id));
      before = page.body.next_before;
      if (before !== null) expect(before).toBe(seen[seen.length - 1]);
    }
    expect(seen).toEqual(ids);
    // A full last page says there is no more (the next page is not known to be empty only afterwards).
    expect((await tg.admin('GET', '/deliveries?limit=3')).body.next_before).toBeNull();
    expect((await tg.admin('GET', '/deliveries?limit=2')).body.next_before).toBe(ids[1]);
  });

  it('shows one delivery with headers, the body parsed and its attempts', async () => {
    const tg = await startAdminGateway();
    const id = (await tg.admin('GET', '/deliveries?status=dead')).body.results[0].id as number;
    const shown = await tg.admin('GET', `/deliveries/${id}`);
    expect(shown.status).toBe(200);
    conforms('getDelivery', shown);
    expect(shown.body).toMatchObject({ id, connector: 'refuser', status: 'dead', verification: 'valid', event_type: 'message_created', body_truncated: false });
    expect(shown.body.headers['x-svc-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(shown.body.body.message.message).toBe('reply via refuser');
    expect(shown.body.attempts).toEqual([expect.objectContaining({ attempt: 1, outcome: 'dead', replay: false, error: expect.stringContaining('TG_DELIVERY_PERMANENT') })]);
    refused(await tg.admin('GET', '/deliveries/999999'), 404, 'TG_RECORD_NOT_FOUND');
  });

  it('lists and shows inbound messages, reports connectors and counts', async () => {
    const tg = await startAdminGateway();
    const inbound = await tg.admin('GET', '/inbound?status=posted');
    conforms('listInbound', inbound);
    expect(inbound.body.results.map((m: { connector: string; external_id: string }) => `${m.connector}:${m.external_id}`)).toEqual(['refuser:refuser-1', 'desk:desk-1']);
    expect((await tg.admin('GET', '/inbound?status=dead')).body.results).toEqual([]);
    expect((await tg.admin('GET', '/inbound?connector=desk&limit=1')).body).toMatchObject({ results: [expect.objectContaining({ connector: 'desk' })], next_before: null });
    const id = inbound.body.results[1].id as number;
    const shown = await tg.admin('GET', `/inbound/${id}`);
    conforms('getInbound', shown);
    expect(shown.body).toMatchObject({ id, connector: 'desk', thread_key: 'T1', thread_id: 'desk:T1', body: 'hi from desk', status: 'posted' });
    expect(shown.body.attempts).toEqual([expect.objectContaining({ outcome: 'posted', status: expect.any(Number) })]);
    refused(await tg.admin('GET', '/inbound/424242'), 404, 'TG_RECORD_NOT_FOUND');

    const connectors = await tg.admin('GET', '/connectors');
    conforms('listConnectors', connectors);
    expect(connectors.body.results).toEqual([
      { name: 'desk', ok: true, details: { delivered: expect.any(Number) } },
      { name: 'refuser', ok: true, details: { delivered: expect.any(Number) } },
    ]);
    const counts = await tg.admin('GET', '/counts');
    conforms('getCounts', counts);
    expect(counts.body.deliveries).toEqual({ accepted: 0, duplicate: 0, rejected: 1, delivered: 1, failed: 0, dead: 1 });
    expect(counts.body.inbound).toEqual({ pending: 0, posted: 2, dead: 0 });
    expect(counts.body.jobs).toMatchObject({ dead: 1, queued: 0, running: 0 });
  });
});

describe('admin API: acting', () => {
  it('replays one delivery through its connector exactly once more, recorded as a replay attempt', async () => {
    const tg = await startAdminGateway();
    const id = (await tg.admin('GET', '/deliveries?status=delivered')).body.results[0].id as number;
    const before = delivered.filter((d) => d.connector === 'desk').length;
    const res = await tg.admin('POST', `/deliveries/${id}/replay`);
    expect(res.status).toBe(202);
    conforms('replayDelivery', res);
    expect(res.body.job_id).toEqual(expect.any(Number));
    await until(async () => (await tg.admin('GET', `/deliveries/${id}`)).body.attempts.length === 2 && tg.gateway.bridge.deliveries.byId(id)!.status === 'delivered', WAIT_MS, 'the replay');
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
    expect(tg.gateway.bridge.deliveries.countByStatus('refuser').dead).toBe(1);

    const started = await tg.admin('POST', '/replays', { status: 'dead,rejected,delivered', since: '1h' });
    expect(started.status).toBe(202);
    const run = await follow(started.body.id);
    expect(run).toMatchObject({ status: 'done', dry_run: false, matched: 3, replayed: 2, skipped: 1, done: 3, error: null });
    expect(run.skipped_records).toEqual([{ id: expect.any(Number), reason: expect.stringContaining('was rejected') }]);
    const [dead, ok] = [(await tg.admin('GET', '/deliveries?connector=refuser')).body.results[0].id, (await tg.admin('GET', '/deliveries?status=delivered')).body.results[0].id] as number[];
    await until(() => tg.gateway.bridge.attempts.ofDelivery(dead!).length === 2 && tg.gateway.bridge.deliveries.byId(dead!)!.status === 'dead', WAIT_MS, 'the refuser to refuse again');
    await until(() => tg.gateway.bridge.attempts.ofDelivery(ok!).length === 2 && tg.gateway.bridge.deliveries.byId(ok!)!.status === 'delivered', WAIT_MS, 'desk to deliver again');

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
    await until(() => tg.gateway.bridge.attempts.ofDelivery(job.payload.delivery).length === 2, WAIT_MS, 'the retried job to run');
    await until(() => tg.gateway.bridge.queue.get(job.id)!.status === 'dead', WAIT_MS, 'the job to die again');

    const done = (await tg.admin('GET', '/jobs?status=done&kind=connector.deliver')).body.results[0].id as number;
    refused(await tg.admin('POST', `/jobs/${done}/retry`), 409, 'TG_JOB_NOT_DEAD');
    refused(await tg.admin('POST', '/jobs/999999/retry'), 404, 'TG_JOB_NOT_FOUND');
    refused(await tg.admin('GET', '/jobs?status=buried'), 400, 'TG_REQUEST_INVALID', 'query.status', /must be one of queued, running, done, dead/);
  });

  it('retries a dead inbound message, which then reaches the platform; a posted one is refused', async () => {
    const sandbox = await startTestSandbox();
    const proxy = await startOutageProxy(sandbox.url);
    const tg = await startTestGateway({
      connectors: [{ name: 'desk', type: 'recorder', module: RECORDER_MODULE }],
      sandbox,
      platformUrl: proxy.url,
      settings: { jobs: { max_attempts: 1, platform_max_attempts: 1 }, server: { admin_token: ADMIN_AUTH.authorization.slice(7) } },
    });
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

describe('admin API: bad input', () => {
  it('answers 400 JSON naming the field for a bad filter, time, limit, cursor or id', async () => {
    const tg = await startAdminGateway();
    const bad = (path: string, field: string, message: RegExp) => tg.admin('GET', path).then((r) => refused(r, 400, 'TG_REQUEST_INVALID', field, message));
    await bad('/deliveries?status=lost', 'query.status', /must be one of accepted, duplicate, rejected, delivered, failed, dead, got "lost"/);
    await bad('/deliveries?since=last%20tuesday', 'query.since', /must be a duration ago \(2h, 30m, 7d\) or an ISO time, got "last tuesday"/);
    await bad('/deliveries?until=soon', 'query.until', /duration ago/);
    await bad('/deliveries?limit=0', 'query.limit', /whole number from 1 to 1000, got "0"/);
    await bad('/deliveries?limit=1001', 'query.limit', /from 1 to 1000/);
    await bad('/deliveries?limit=ten', 'query.limit', /whole number/);
    await bad('/deliveries?before=-3', 'query.before', /whole number 1 or more/);
    await bad('/deliveries?connector=', 'query.connector', /must not be empty/);
    await bad('/deliveries?stauts=dead', 'query.stauts', /not a known field/);
    await bad('/inbound?status=failed', 'query.status', /must be one of pending, posted, dead/);
    await bad('/inbound?event=message_created', 'query.event', /not a known field/);
    await bad('/deliveries/abc', 'params.id', /positive|whole number/);
    await bad('/inbound/0', 'params.id', /whole number 1 or more, got "0"/);
    // Two problems at once: both named.
    const both = await tg.admin('GET', '/deliveries?status=lost&limit=0');
    expect(both.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['query.limit', 'query.status']);
    expect(both.body.message).toContain('query.status: must be one of');
    refused(await tg.admin('GET', '/nothing-here'), 404, 'TG_NOT_FOUND');
  });
});

describe('admin API: OpenAPI', () => {
  it('serves an OpenAPI 3.1 document that lists every route, with parameters, bodies and resolvable schemas', async () => {
    const tg = await startAdminGateway();
    const res = await tg.call('GET', '/admin/api/openapi.json');
    expect(res.status).toBe(200);
    const doc = JSON.parse(res.text) as {
      openapi: string;
      paths: Record<string, Record<string, { operationId: string; parameters: { name: string; in: string; required: boolean }[]; requestBody?: unknown; responses: Record<string, unknown>; security?: unknown[] }>>;
      components: { schemas: Record<string, unknown>; securitySchemes: Record<string, { type: string; scheme: string }> };
    };
    expect(doc.openapi).toBe('3.1.0');
    const operations = Object.entries(doc.paths).flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`)).sort();
    expect(operations).toEqual([
      'GET /admin/api/connectors',
      'GET /admin/api/counts',
      'GET /admin/api/deliveries',
      'GET /admin/api/deliveries/{id}',
      'GET /admin/api/inbound',
      'GET /admin/api/inbound/{id}',
      'GET /admin/api/jobs',
      'GET /admin/api/openapi.json',
      'GET /admin/api/replays/{id}',
      'POST /admin/api/deliveries/{id}/replay',
      'POST /admin/api/inbound/{id}/retry',
      'POST /admin/api/jobs/{id}/retry',
      'POST /admin/api/replays',
    ]);
    // Every route the API serves is in the document.
    for (const route of ADMIN_ROUTES) expect(doc.paths[`/admin/api${route.path.replace(/:(\w+)/g, '{$1}')}`]?.[route.method.toLowerCase()]?.operationId).toBe(route.operationId);
    expect(doc.components.securitySchemes.adminToken).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.paths['/admin/api/openapi.json']!.get!.security).toEqual([]);

    const list = doc.paths['/admin/api/deliveries']!.get!;
    expect(list.parameters.map((p) => p.name).sort()).toEqual(['before', 'connector', 'event', 'limit', 'since', 'status', 'thread', 'until']);
    expect(list.parameters.every((p) => p.in === 'query' && !p.required)).toBe(true);
    expect(list.parameters.find((p) => p.name === 'limit')).toMatchObject({ schema: { type: 'integer', minimum: 1, maximum: 1000 } });
    expect(doc.paths['/admin/api/deliveries/{id}']!.get!.parameters).toEqual([expect.objectContaining({ name: 'id', in: 'path', required: true })]);
    expect(Object.keys(doc.paths['/admin/api/deliveries/{id}/replay']!.post!.responses).sort()).toEqual(['202', '400', '401', '404', '409']);
    expect(doc.paths['/admin/api/replays']!.post!.requestBody).toEqual({ required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/ReplayRequest' } } } });
    const replayRequest = doc.components.schemas.ReplayRequest as { properties: Record<string, unknown>; required: string[] };
    expect(Object.keys(replayRequest.properties).sort()).toEqual(['connector', 'dry_run', 'event', 'since', 'status', 'thread', 'until']);
    expect(replayRequest.required).toEqual(['status']);

    // Every $ref points at a component that exists.
    const refs = [...res.text.matchAll(/"\$ref":"([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThan(20);
    for (const ref of new Set(refs)) expect(doc.components.schemas[ref.replace('#/components/schemas/', '')], ref).toBeDefined();
  });
});
