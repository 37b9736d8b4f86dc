/**
 * The admin API over real HTTP, its guards: the token guards every route
 * but the OpenAPI document, the API is off without a token, and every bad
 * filter, time, limit, cursor or id is refused as JSON naming the field.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it, onTestFinished } from 'vitest';
import { Settings } from '../../src/config/schema.ts';
import { buildApp } from '../../src/http/app.ts';
import { createLogger } from '../../src/log/logger.ts';
import { openStore } from '../../src/store/database.ts';
import { ADMIN_AUTH, startAdminGateway } from '../support/admin-gateway.ts';
import { tempDir } from '../support/temp-dir.ts';
import { refused } from './admin-api-support.ts';

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
    // Assembled from page.html, page.css and the page-*.js pieces: one inline script and style, each allowed by its hash.
    expect(page.text).toContain('function renderDetail(kind, r) {');
    expect(page.text).toContain('dialog::backdrop { background: rgba(20, 25, 35, .35); }');
    const inlineHash = (tag: string) => `'sha256-${createHash('sha256').update(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`).exec(page.text)?.[1] ?? '').digest('base64')}'`;
    expect(page.headers['content-security-policy']).toContain(`script-src ${inlineHash('script')}; style-src ${inlineHash('style')};`);
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

describe('admin API: bad input', () => {
  it('answers 400 JSON naming the field for a bad filter, time, limit, cursor or id', async () => {
    const tg = await startAdminGateway();
    const bad = (path: string, field: string, message: RegExp) => tg.admin('GET', path).then((r) => refused(r, 400, 'TG_REQUEST_INVALID', field, message));
    await bad('/deliveries?status=lost', 'query.status', /must be one of accepted, duplicate, rejected, delivered, skipped, failed, dead, got "lost"/);
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
