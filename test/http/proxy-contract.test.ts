/**
 * The proxy's contract, endpoint by endpoint: every documented endpoint
 * (ALL_ENDPOINTS) is called through one gateway against three recording
 * upstreams (api, builder, auth) on port 0, and for each the upstream must see
 * the same method, path, query and body bytes the caller sent, on the upstream
 * the endpoint is documented under, with `Authorization: Token <platform
 * token>` in place of the caller's gateway key and X-Forwarded-For added; the
 * upstream's status and body must reach the caller unchanged. An invalid body
 * is refused locally (400 naming the field) for one endpoint of each spec
 * area, with nothing reaching any upstream.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request, type Dispatcher } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { startGateway, type RunningGateway } from '../../src/cli/gateway.ts';
import { loadSettings } from '../../src/config/load.ts';
import { createLogger } from '../../src/log/logger.ts';
import { ALL_ENDPOINTS } from '../../src/platform/endpoints/index.ts';
import type { EndpointSpec, Upstream } from '../../src/platform/endpoints/types.ts';
import { startRecordingUpstreams, type Recorded, type RecordingUpstreams } from '../support/recording-upstreams.ts';
import { ANY_QUERY, BODIES, INVALID, ORG, PARAMS, QUERIES, SKIPPED } from '../support/endpoint-samples.ts';

const KEY = 'gw-key-for-the-contract-0123456789';
const PLATFORM_TOKEN = 'platform-secret-token';
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

const MULTIPART_BOUNDARY = '----threadgate-contract-7f3a9c';
const PNG_BYTES = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff, 0x10, 0x80]);
const multipartBody = Buffer.concat([
  Buffer.from(`--${MULTIPART_BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="avatar.png"\r\nContent-Type: image/png\r\n\r\n`),
  PNG_BYTES,
  Buffer.from(`\r\n--${MULTIPART_BOUNDARY}--\r\n`),
]);

// ─── Recording upstreams and the gateway ────────────────────────────────────

/** What an upstream answers: keyed by the endpoint id the caller names in `x-contract-endpoint` (a plain, forwarded header). */
function answerFor(upstream: Upstream, id: string, method: string): { status: number; headers: Record<string, string>; body: Buffer } {
  const endpoint = ALL_ENDPOINTS.find((e) => e.id === id);
  if (endpoint?.redirects) return { status: 302, headers: { location: 'https://app.example/cb#access_token=at&state=s' }, body: Buffer.alloc(0) };
  if (method === 'DELETE') return { status: 204, headers: {}, body: Buffer.alloc(0) };
  if (endpoint?.download) return { status: 200, headers: { 'content-type': 'text/csv' }, body: Buffer.from(`a,b\r\n${id},${upstream}\r\n`) };
  const status = method === 'POST' ? 201 : 200;
  return { status, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify({ answered: id, upstream, n: 1 })) };
}

let upstreams: RecordingUpstreams;
let seen: Recorded[];
let upstreamUrls: Record<Upstream, string>;
let gateway: RunningGateway;
let dir: string;

beforeAll(async () => {
  upstreams = await startRecordingUpstreams(answerFor);
  ({ seen, urls: upstreamUrls } = upstreams);
  dir = mkdtempSync(join(tmpdir(), 'threadgate-contract-'));
  const settings = {
    platform: { url: upstreamUrls.api, builder_url: upstreamUrls.builder, auth_url: upstreamUrls.auth, organization_id: ORG, token: PLATFORM_TOKEN },
    store: { path: 'gateway.db' },
    log: { level: process.env.TEST_LOG_LEVEL ?? 'silent' },
    connectors: [],
    proxy: {
      clients: [{ name: 'contract', key_sha256: sha(KEY), rate_per_minute: 100_000, allow: [{ methods: ['*'], paths: ['/api/*', '/authorize', '/callback', '/token'] }] }],
    },
  };
  const file = join(dir, 'threadgate.yaml');
  writeFileSync(file, stringify(settings));
  const loaded = loadSettings({ path: file });
  gateway = await startGateway(loaded, createLogger(loaded.settings.log.level), { port: 0, jobPollMs: 50 });
});

afterAll(async () => {
  await gateway?.close();
  await upstreams?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => {
  seen.length = 0;
});

function concretePath(template: string): string {
  return template.replace(/<([a-z_]+)>/g, (_m, name: string) => {
    const value = PARAMS[name];
    if (value === undefined) throw new Error(`no sample for path parameter <${name}> in ${template}`);
    return value;
  });
}

function queryOf(endpoint: EndpointSpec): string {
  return new URLSearchParams(QUERIES[endpoint.id] ?? ANY_QUERY).toString();
}

/** The bytes and content type the caller sends for an endpoint. */
function requestBodyOf(endpoint: EndpointSpec): { body: Buffer; contentType: string } | undefined {
  if (endpoint.multipart) return { body: multipartBody, contentType: `multipart/form-data; boundary=${MULTIPART_BOUNDARY}` };
  if (endpoint.body === undefined) return undefined;
  // Odd spacing and non-ASCII kept: the upstream must get these exact bytes, not a re-serialisation.
  return { body: Buffer.from(JSON.stringify(BODIES[endpoint.id], null, 1), 'utf8'), contentType: 'application/json; charset=utf-8' };
}

async function callGateway(method: string, pathAndQuery: string, id: string, body?: { body: Buffer; contentType: string }) {
  const res = await request(`${gateway.url}${pathAndQuery}`, {
    method: method as Dispatcher.HttpMethod,
    headers: {
      authorization: `Bearer ${KEY}`,
      'x-contract-endpoint': id,
      ...(body ? { 'content-type': body.contentType } : {}),
    },
    body: body?.body,
  });
  const bytes = Buffer.from(await res.body.arrayBuffer());
  return { status: res.statusCode, headers: res.headers, body: bytes };
}

// ─── The tests ──────────────────────────────────────────────────────────────

describe('the proxy contract', () => {
  const covered = ALL_ENDPOINTS.filter((e) => !(e.id in SKIPPED));

  it('has a valid sample for every body schema and query schema, and no stray samples', () => {
    expect(ALL_ENDPOINTS).toHaveLength(95);
    const withBody = ALL_ENDPOINTS.filter((e) => e.body && !(e.id in SKIPPED)).map((e) => e.id);
    expect(Object.keys(BODIES).sort()).toEqual(withBody.sort());
    for (const e of covered) {
      if (e.body) expect(e.body.safeParse(BODIES[e.id]).success, `${e.id} body sample`).toBe(true);
      if (e.query) {
        expect(QUERIES[e.id], `${e.id} has a query sample`).toBeDefined();
        expect(e.query.safeParse(QUERIES[e.id]).success, `${e.id} query sample`).toBe(true);
      }
    }
    expect(Object.keys(SKIPPED).length).toBeLessThanOrEqual(3);
  });

  it.each(covered.map((e) => [`${e.source.slice(0, 2)} ${e.id}: ${e.method} ${e.path}`, e] as const))('%s', async (_name, endpoint) => {
    const path = concretePath(endpoint.path);
    const query = queryOf(endpoint);
    const sent = requestBodyOf(endpoint);
    const res = await callGateway(endpoint.method, `${path}?${query}`, endpoint.id, sent);

    // What the upstream saw: one request, on the upstream the endpoint is documented under.
    expect(seen.map((r) => r.upstream)).toEqual([endpoint.upstream]);
    const [got] = seen as [Recorded];
    expect(got.method).toBe(endpoint.method);
    expect(got.url).toBe(`${path}?${query}`);
    if (sent) {
      expect(got.body.equals(sent.body), 'body bytes unchanged').toBe(true);
      expect(got.headers['content-type']).toBe(sent.contentType);
      expect(got.headers['content-length']).toBe(String(sent.body.length));
    } else {
      expect(got.body.length).toBe(0);
    }
    expect(got.headers.authorization).toBe(`Token ${PLATFORM_TOKEN}`);
    expect(JSON.stringify(got.headers)).not.toContain(KEY);
    expect(got.body.toString('latin1')).not.toContain(KEY);
    expect(got.headers['x-forwarded-for']).toMatch(/127\.0\.0\.1/);
    expect(got.headers['x-contract-endpoint']).toBe(endpoint.id);

    // What the caller got: the upstream's status and body, unchanged.
    const answer = answerFor(endpoint.upstream, endpoint.id, endpoint.method);
    expect(res.status).toBe(answer.status);
    expect(res.body.equals(answer.body), `answer body: ${res.body.toString('utf8')}`).toBe(true);
    if (answer.headers['content-type']) expect(res.headers['content-type']).toBe(answer.headers['content-type']);
    if (answer.headers.location) expect(res.headers.location).toBe(answer.headers.location);
  });

  it('covers every spec area with an invalid-body check', () => {
    const areas = new Set(INVALID.map((c) => ALL_ENDPOINTS.find((e) => e.id === c.id)?.source.slice(0, 2)));
    expect([...areas].sort()).toEqual(['01', '02', '03']);
  });

  it.each(INVALID.map((c) => [c.id, c.field, c] as const))('%s: an invalid body is refused locally with 400 naming %s', async (_id, field, c) => {
    const endpoint = ALL_ENDPOINTS.find((e) => e.id === c.id)!;
    const body = { body: Buffer.from(JSON.stringify(c.body)), contentType: 'application/json' };
    const res = await callGateway(endpoint.method, concretePath(endpoint.path), endpoint.id, body);
    expect(res.status).toBe(400);
    const error = JSON.parse(res.body.toString('utf8')) as { code: string; errors: { path: string }[] };
    expect(error.code).toBe('TG_REQUEST_INVALID');
    expect(error.errors.map((e) => e.path)).toContain(field);
    expect(seen).toHaveLength(0);
  });
});
