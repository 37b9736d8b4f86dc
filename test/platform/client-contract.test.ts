/**
 * The typed client's contract, endpoint by endpoint: every documented
 * endpoint is called through `createPlatformClient` against three recording
 * upstreams (api, builder, auth) on port 0. Each must send the documented
 * method to the documented upstream and path, the query and body as their
 * schemas output them, `Authorization: Token <token>`; and treat the answer
 * as the endpoint says (parsed with the response schema, a download handed
 * over as a stream, a redirect or 4xx thrown with its status).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createPlatformClient, PlatformDownload, PlatformHttpError, PlatformRequestInvalidError, PlatformResponseError, type PlatformClient } from '../../src/platform/client.ts';
import { ALL_ENDPOINTS } from '../../src/platform/endpoints/index.ts';
import type { EndpointSpec, Upstream } from '../../src/platform/endpoints/types.ts';
import { startRecordingUpstreams, type Recorded, type RecordingUpstreams } from '../support/recording-upstreams.ts';
import { ANY_QUERY, BODIES, INVALID, ORG, PARAMS, QUERIES } from '../support/endpoint-samples.ts';

const TOKEN = 'platform-token-for-the-client';
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff]);

let upstreams: RecordingUpstreams;
let seen: Recorded[];
let urls: Record<Upstream, string>;
let client: PlatformClient;

function answerFor(id: string, method: string): { status: number; headers: Record<string, string>; body: string } {
  const endpoint = ALL_ENDPOINTS.find((e) => e.id === id);
  if (endpoint?.redirects) return { status: 302, headers: { location: 'https://app.example/cb#state=s' }, body: '' };
  if (method === 'DELETE') return { status: 204, headers: {}, body: '' };
  if (endpoint?.download) {
    return { status: 200, headers: { 'content-type': 'text/csv; charset=utf-8', 'content-disposition': `attachment; filename="${id}.csv"` }, body: `a,b\r\n${id},1\r\n` };
  }
  return { status: method === 'POST' ? 201 : 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ answered: id, n: 1 }) };
}

beforeAll(async () => {
  upstreams = await startRecordingUpstreams((_upstream, id, method) => answerFor(id, method));
  ({ seen, urls } = upstreams);
  client = createPlatformClient({ url: urls.api, builderUrl: urls.builder, authUrl: urls.auth, token: TOKEN, organizationId: ORG, retry: { attempts: 1 } });
});

afterAll(async () => {
  await client?.close();
  await upstreams?.close();
});

beforeEach(() => {
  seen.length = 0;
});

/** Calls an endpoint by id with loose arguments (the per-endpoint types are checked in client-types.test.ts). */
function callById(id: string, args: Record<string, unknown>): Promise<unknown> {
  return (client as unknown as Record<string, (a: unknown) => Promise<unknown>>)[id]!(args);
}

function paramsOf(endpoint: EndpointSpec): Record<string, string> {
  const names = [...endpoint.path.matchAll(/<([a-z_]+)>/g)].map((m) => m[1]!).filter((n) => n !== 'organization_id');
  return Object.fromEntries(names.map((n) => [n, PARAMS[n]!]));
}

function expectedQuery(endpoint: EndpointSpec): Record<string, string> {
  const sample = QUERIES[endpoint.id] ?? ANY_QUERY;
  const out = endpoint.query ? (endpoint.query.parse(sample) as Record<string, unknown>) : sample;
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined).map(([k, v]) => [k, String(v)]));
}

function argsOf(endpoint: EndpointSpec): Record<string, unknown> {
  let body: unknown;
  if (endpoint.multipart) {
    body = new FormData();
    (body as FormData).append('file', new Blob([PNG], { type: 'image/png' }), 'avatar.png');
  } else if (endpoint.body) body = BODIES[endpoint.id];
  return { params: paramsOf(endpoint), query: QUERIES[endpoint.id] ?? ANY_QUERY, body, headers: { 'x-contract-endpoint': endpoint.id } };
}

describe('the typed client, endpoint by endpoint', () => {
  it('has one function per documented endpoint', () => {
    const functions = ALL_ENDPOINTS.filter((e) => typeof (client as unknown as Record<string, unknown>)[e.id] === 'function');
    expect(functions).toHaveLength(ALL_ENDPOINTS.length);
    expect(ALL_ENDPOINTS).toHaveLength(95);
  });

  it.each(ALL_ENDPOINTS.map((e) => [`${e.source.slice(0, 2)} ${e.id}: ${e.method} ${e.path}`, e] as const))('%s', async (_name, endpoint) => {
    const outcome = await callById(endpoint.id, argsOf(endpoint)).then(
      (value) => ({ value, error: undefined }),
      (error: unknown) => ({ value: undefined, error }),
    );

    expect(seen.map((r) => r.upstream)).toEqual([endpoint.upstream]);
    const [got] = seen as [Recorded];
    expect(got.method).toBe(endpoint.method);
    const url = new URL(got.url, 'http://x');
    expect(url.pathname).toBe(endpoint.path.replace(/<([a-z_]+)>/g, (_m, n: string) => PARAMS[n]!));
    expect(Object.fromEntries(url.searchParams)).toEqual(expectedQuery(endpoint));
    // Sign-in endpoints authenticate the app, not the API caller: the platform token is not sent there.
    expect(got.headers.authorization).toBe(endpoint.upstream === 'auth' ? undefined : `Token ${TOKEN}`);
    if (endpoint.multipart) {
      expect(got.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
      expect(got.body.includes(PNG)).toBe(true);
    } else if (endpoint.body) {
      expect(got.headers['content-type']).toBe('application/json');
      expect(JSON.parse(got.body.toString('utf8'))).toEqual(JSON.parse(JSON.stringify(endpoint.body.parse(BODIES[endpoint.id]))));
    } else {
      expect(got.body.length).toBe(0);
    }

    const answer = answerFor(endpoint.id, endpoint.method);
    if (answer.status === 302) {
      expect(outcome).toEqual({ value: { status: 302, location: answer.headers.location, body: undefined }, error: undefined });
    } else if (endpoint.download) {
      expect(outcome.value).toBeInstanceOf(PlatformDownload);
      const download = outcome.value as PlatformDownload;
      expect([download.contentType, download.filename]).toEqual(['text/csv', `${endpoint.id}.csv`]);
      expect(await download.text()).toBe(answer.body);
    } else if (answer.status === 204) {
      expect(outcome).toEqual({ value: undefined, error: undefined });
    } else if (endpoint.response && !endpoint.response.safeParse(JSON.parse(answer.body)).success) {
      // The recorder's answer does not fit this endpoint's schema: the client says so instead of passing it on.
      expect(outcome.error).toBeInstanceOf(PlatformResponseError);
    } else {
      expect(outcome.error).toBeUndefined();
      expect(outcome.value).toMatchObject({ answered: endpoint.id });
    }
  });

  it.each(INVALID.map((c) => [c.id, c.field, c] as const))('%s: an invalid body is refused before sending, naming body.%s', async (id, field, c) => {
    const endpoint = ALL_ENDPOINTS.find((e) => e.id === id)!;
    const error = await callById(id, { params: paramsOf(endpoint), body: c.body }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlatformRequestInvalidError);
    expect((error as PlatformRequestInvalidError).issues.map((i) => i.path)).toContain(`body.${field}`);
    expect(seen).toHaveLength(0);
  });

  it('refuses a missing or dot path parameter before sending, naming it', async () => {
    const error = await callById('getChannel', { params: { channel_id: '..' } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlatformRequestInvalidError);
    expect((error as PlatformRequestInvalidError).issues).toEqual([{ path: 'params.channel_id', message: 'must be a non-empty id' }]);
    const bare = createPlatformClient({ url: urls.api, token: TOKEN });
    const noOrg = await bare.listChannels().catch((e: unknown) => e);
    expect((noOrg as PlatformRequestInvalidError).issues.map((i) => i.path)).toEqual(['params.organization_id']);
    await bare.close();
    expect(seen).toHaveLength(0);
  });

  it('encodes path parameters and lets a call name another organization', async () => {
    await client.getUser({ params: { user_id: 'a/b c' }, headers: { 'x-contract-endpoint': 'getUser' } }).catch(() => undefined);
    await client.listChannels({ params: { organization_id: 'other-org' }, headers: { 'x-contract-endpoint': 'listChannels' } }).catch(() => undefined);
    expect(seen.map((r) => r.url)).toEqual(['/api/v5/users/a%2Fb%20c', '/api/pub/v1/orgs/other-org/channels']);
  });

  it('sends URLSearchParams as a form with the app\'s own Basic credentials (the /token exchange), and extra headers such as X-PRIVATE-KEY', async () => {
    const form = new URLSearchParams({ grant_type: 'authorization_code', code: 'c0de' });
    const basic = `Basic ${Buffer.from('app:secret').toString('base64')}`;
    await client.exchangeToken({ body: form, headers: { 'x-contract-endpoint': 'exchangeToken', Authorization: basic } }).catch(() => undefined);
    await client.listDecryptedChats({ params: { room_id: PARAMS.room_id! }, headers: { 'x-private-key': 'KEY\\nLINE', 'x-contract-endpoint': 'x' } }).catch(() => undefined);
    const [token, decrypted] = seen as [Recorded, Recorded];
    expect(token.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(token.headers.authorization).toBe(basic);
    expect(Object.fromEntries(new URLSearchParams(token.body.toString('utf8')))).toEqual(Object.fromEntries(form));
    expect(decrypted.headers['x-private-key']).toBe('KEY\\nLINE');
    expect(decrypted.headers.authorization).toBe(`Token ${TOKEN}`);
  });
});
