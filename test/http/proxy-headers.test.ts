/**
 * The headers the proxy passes to the platform, seen by a recording upstream:
 * method overrides and the headers a caller's `Connection` names are dropped,
 * and the forwarding headers say what the gateway saw, whatever the caller
 * claimed.
 */
import { describe, expect, it } from 'vitest';
import { PROXY_ORG, proxyAuth, proxyGateway, recordingUpstream } from '../support/proxy-upstream.ts';
import { rawRequest } from '../support/raw-http.ts';

const LIST = `/api/v5/orgs/${PROXY_ORG}/unified_messaging`;

describe('headers through the proxy', () => {
  // Guards against a GET the allow-list admitted being run as a DELETE by a platform that honours method overrides.
  it('drops X-HTTP-Method-Override, X-HTTP-Method and X-Method-Override', async () => {
    const up = await recordingUpstream();
    const tg = await proxyGateway(up.url);
    const overrides = { 'x-http-method-override': 'DELETE', 'x-http-method': 'DELETE', 'x-method-override': 'DELETE' };
    const res = await tg.call('GET', LIST, undefined, { ...proxyAuth, ...overrides, 'x-contract-note': 'kept' });
    expect(res.status).toBe(200);
    const [seen] = up.seen;
    for (const name of Object.keys(overrides)) expect(seen!.headers).not.toHaveProperty(name);
    expect(seen!.headers['x-contract-note']).toBe('kept');
  });

  // Guards against headers the caller marked hop-by-hop in `Connection` reaching the platform (RFC 9110 §7.6.1).
  it("drops every header the caller's Connection header names", async () => {
    const up = await recordingUpstream();
    const tg = await proxyGateway(up.url);
    const res = await rawRequest(tg.gateway.url, 'GET', LIST, {
      ...proxyAuth,
      connection: 'close, X-Internal-Hop ,x-tenant',
      'x-internal-hop': 'secret-route',
      'x-tenant': 'other-org',
      'x-request-id': 'r-1',
    });
    expect(res.status).toBe(200);
    const [seen] = up.seen;
    expect(seen!.headers).not.toHaveProperty('x-internal-hop');
    expect(seen!.headers).not.toHaveProperty('x-tenant');
    expect(seen!.headers['x-request-id']).toBe('r-1');
    expect(seen!.headers.authorization).toBe('Token platform-secret-token');
  });

  // Guards against a caller's own Forwarded / X-Forwarded-* / X-Real-IP claims reaching the platform as if the gateway made them.
  it('sets Forwarded and X-Forwarded-For/-Proto/-Host from what the gateway saw', async () => {
    const up = await recordingUpstream();
    const tg = await proxyGateway(up.url);
    const res = await tg.call('GET', LIST, undefined, {
      ...proxyAuth,
      forwarded: 'for=10.9.9.9;proto=https;host=admin.internal',
      'x-forwarded-for': '10.9.9.9',
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'admin.internal',
      'x-forwarded-port': '443',
      'x-forwarded-prefix': '/admin',
      'x-real-ip': '10.9.9.9',
    });
    expect(res.status).toBe(200);
    const [seen] = up.seen;
    const host = new URL(tg.gateway.url).host;
    expect(seen!.headers['x-forwarded-for']).toBe('127.0.0.1');
    expect(seen!.headers['x-forwarded-proto']).toBe('http');
    expect(seen!.headers['x-forwarded-host']).toBe(host);
    expect(seen!.headers.forwarded).toBe(`for=127.0.0.1;host="${host}";proto=http`);
    expect(seen!.headers).not.toHaveProperty('x-forwarded-port');
    expect(seen!.headers).not.toHaveProperty('x-forwarded-prefix');
    expect(seen!.headers).not.toHaveProperty('x-real-ip');
    expect(JSON.stringify(seen!.headers)).not.toContain('10.9.9.9');
  });
});
