/**
 * The proxy's path rule, against a recording upstream that sees the raw
 * request target: dot segments (raw or percent-encoded in any case mix),
 * encoded slashes and backslashes inside a segment, raw backslashes and empty
 * segments are refused with 400 naming `path` before anything leaves, a good
 * path reaches the platform byte for byte, and `<organization_id>` in an
 * allow-list matches only the configured organisation.
 */
import { describe, expect, it } from 'vitest';
import { PROXY_ORG, proxyAuth, proxyGateway, recordingUpstream, sha256Hex, PROXY_KEY } from '../support/proxy-upstream.ts';
import { rawRequest } from '../support/raw-http.ts';

const ORGS = '/api/v5/orgs';
const UM = `${ORGS}/${PROXY_ORG}/unified_messaging`;
const MESSAGE = JSON.stringify({ messages: [{ body: 'hi', thread_id: 't-1', sender_id: 'ann@example.com', message_id: '<a@x>' }] });

/** A client allowed to read anything of its organisation (`/api/v5/orgs/<organization_id>/*`). */
const orgReader = { clients: [{ name: 'reader', key_sha256: sha256Hex(PROXY_KEY), allow: [{ methods: ['GET'], paths: [`${ORGS}/<organization_id>/*`] }] }] };

const DOT_SEGMENTS = ['..', '%2e%2e', '%2E%2E', '%2e%2E', '.%2e', '%2e.', '.%2E', '%2E.'];

function expectPathRefused(answer: { status: number; json: unknown }): void {
  expect(answer.status).toBe(400);
  expect(answer.json).toMatchObject({ code: 'TG_PATH_INVALID', errors: [{ path: 'path' }] });
}

describe('the proxy path rule', () => {
  // Guards against `GET /api/v5/orgs/%2e%2e/users/me` passing an org-scoped allow-list and reaching /api/v5/users/me.
  it.each(DOT_SEGMENTS)('refuses GET /api/v5/orgs/%s/users/me and sends nothing upstream', async (dots) => {
    const up = await recordingUpstream();
    const lines: string[] = [];
    const tg = await proxyGateway(up.url, orgReader, lines);
    const answer = await rawRequest(tg.gateway.url, 'GET', `${ORGS}/${dots}/users/me`, proxyAuth);
    expectPathRefused(answer);
    expect(up.seen).toEqual([]);
    expect(lines.join('')).toContain('"code":"TG_PATH_INVALID"');
  });

  // Guards against a client allowed only …/unified_messaging/* posting to …/orgs/<org>/messages via `%2e%2e`.
  it.each(DOT_SEGMENTS)('refuses POST …/unified_messaging/%s/messages from a client allowed only unified messaging', async (dots) => {
    const up = await recordingUpstream();
    const tg = await proxyGateway(up.url);
    const answer = await rawRequest(tg.gateway.url, 'POST', `${UM}/${dots}/messages`, { ...proxyAuth, 'content-type': 'application/json' }, MESSAGE);
    expectPathRefused(answer);
    expect(up.seen).toEqual([]);
  });

  // Guards against single-dot segments, encoded slashes or backslashes, raw backslashes, empty segments,
  // double-encoded dots and a raw or encoded # being checked as one path and served as another.
  it.each([
    ['a raw dot segment', `${UM}/./cfg-1/messages`],
    ['an encoded dot segment', `${UM}/%2e/cfg-1/messages`],
    ['an upper-case encoded dot segment', `${UM}/%2E/cfg-1/messages`],
    ['a dot segment at the end', `${UM}/cfg-1/messages/..`],
    ['an encoded slash', `${UM}/cfg-1%2f..%2fx/messages`],
    ['an upper-case encoded slash', `${UM}/cfg-1%2F..%2Fx/messages`],
    ['an encoded backslash', `${UM}/cfg-1%5c..%5cx/messages`],
    ['an upper-case encoded backslash', `${UM}/cfg-1%5C..%5Cx/messages`],
    ['a raw backslash', `${UM}/cfg-1\\..\\x/messages`],
    ['an empty segment', `${ORGS}/${PROXY_ORG}//unified_messaging/cfg-1/messages`],
    ['a double-encoded dot segment', `${UM}/%252e%252e/messages`],
    ['a dot segment with a path parameter', `${UM}/..;x/messages`],
    ['a broken percent escape', `${UM}/cfg%zz/messages`],
    ['a raw # that a URL parser cuts the path at', `${UM}/cfg-1#/messages`],
    ['a double-encoded #', `${UM}/cfg-1%2523/messages`],
  ])('refuses %s (%s) and sends nothing upstream', async (_what, target) => {
    const up = await recordingUpstream();
    const tg = await proxyGateway(up.url);
    const answer = await rawRequest(tg.gateway.url, 'POST', target, { ...proxyAuth, 'content-type': 'application/json' }, MESSAGE);
    expectPathRefused(answer);
    expect(up.seen).toEqual([]);
  });

  // Guards against the forwarded path being re-parsed (and so re-encoded or normalised) after it was checked.
  it('sends the checked path and query byte for byte', async () => {
    const up = await recordingUpstream();
    const tg = await proxyGateway(up.url, orgReader);
    const target = `${ORGS}/${PROXY_ORG}/users/ann{1}%7e.x?ordering=email&x=%2e%2e`;
    const answer = await rawRequest(tg.gateway.url, 'GET', target, proxyAuth);
    expect(answer.status).toBe(200);
    expect(up.seen.map((r) => `${r.method} ${r.url}`)).toEqual([`GET ${target}`]);
  });

  // Guards against `<organization_id>` in an allow-list admitting any organisation's id.
  it('lets <organization_id> in an allow-list match only the configured organisation', async () => {
    const up = await recordingUpstream();
    const tg = await proxyGateway(up.url, orgReader);
    const other = await tg.call('GET', `${ORGS}/0b0c2a10-8d1a-4a8e-9a57-6f1c1f1e0d4f/users`, undefined, proxyAuth);
    expect(other.status).toBe(403);
    expect(other.body.code).toBe('TG_PROXY_FORBIDDEN');
    expect(up.seen).toEqual([]);
    const own = await tg.call('GET', `${ORGS}/${PROXY_ORG}/users`, undefined, proxyAuth);
    expect(own.status).toBe(200);
    expect(up.seen.map((r) => r.url)).toEqual([`${ORGS}/${PROXY_ORG}/users`]);
  });
});
