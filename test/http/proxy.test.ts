/**
 * The proxy against a recording upstream on port 0: what is forwarded (method,
 * path, query, body, the injected Authorization, X-Forwarded-*), what is
 * refused before anything leaves (wrong key, denied path, invalid body, rate
 * limit, undocumented path), upstream failures as JSON errors, and a large
 * download that streams through instead of being held.
 */
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { PROXY_KEY as KEY, PROXY_ORG as ORG, proxyAuth as auth, proxyGateway, recordingUpstream as upstream, sha256Hex as sha } from '../support/proxy-upstream.ts';

describe('the proxy', () => {
  it('forwards a documented call with the platform token in place of the gateway key', async () => {
    const up = await upstream();
    const tg = await proxyGateway(up.url);
    const res = await tg.call('GET', `/api/v5/orgs/${ORG}/unified_messaging?ordering=-created_at`, undefined, { ...auth, 'x-forwarded-for': '10.1.1.1', connection: 'keep-alive' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ results: [] });
    const [seen] = up.seen;
    expect(seen).toMatchObject({ method: 'GET', url: `/api/v5/orgs/${ORG}/unified_messaging?ordering=-created_at` });
    expect(seen!.headers.authorization).toBe('Token platform-secret-token');
    expect(seen!.headers['x-forwarded-for']).toBe('127.0.0.1'); // what the gateway saw, not the caller's claim
    expect(seen!.headers['x-forwarded-proto']).toBe('http');
  });

  it('sends a valid body unchanged, and refuses an invalid one locally naming the field', async () => {
    const up = await upstream((_req, res) => res.writeHead(201, { 'content-type': 'application/json' }).end('{"id":"x"}'));
    const tg = await proxyGateway(up.url);
    const good = { name: 'Inbox', messaging_channel: 'email', room_id: ORG, reply_webhook_url: 'https://x.test/hook' };
    const raw = JSON.stringify(good, null, 1); // odd spacing: forwarded byte for byte
    const ok = await tg.call('POST', `/api/v5/orgs/${ORG}/unified_messaging`, raw, auth);
    expect(ok.status).toBe(201);
    expect(up.seen[0]!.body).toBe(raw);

    const bad = await tg.call('POST', `/api/v5/orgs/${ORG}/unified_messaging`, { ...good, name: 'n'.repeat(256), colour: 'red' }, auth);
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('TG_REQUEST_INVALID');
    expect(bad.body.errors.map((e: { path: string }) => e.path)).toContain('name');
    expect(JSON.stringify(bad.body.errors)).toContain('colour');
    expect(up.seen).toHaveLength(1);

    const badQuery = await tg.call('GET', `/api/v5/orgs/${ORG}/unified_messaging?ordering=sideways&page_size=500`, undefined, auth);
    expect(badQuery.status).toBe(400);
    expect(badQuery.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['query.ordering', 'query.page_size']);
    expect(up.seen).toHaveLength(1);
  });

  it('refuses a missing or wrong key (401), a path outside the allow-list (403), an undocumented path (404), a wrong method (405)', async () => {
    const up = await upstream();
    const tg = await proxyGateway(up.url);
    const list = `/api/v5/orgs/${ORG}/unified_messaging`;
    expect((await tg.call('GET', list)).status).toBe(401);
    const wrong = await tg.call('GET', list, undefined, { authorization: 'Bearer not-the-key' });
    expect(wrong.status).toBe(401);
    expect(wrong.body.code).toBe('TG_PROXY_UNAUTHORIZED');
    const denied = await tg.call('DELETE', `${list}/abc`, undefined, auth);
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('TG_PROXY_FORBIDDEN');
    expect((await tg.call('GET', '/api/v5/nothing/here', undefined, auth)).status).toBe(404);
    expect((await tg.call('PUT', list, {}, auth)).status).toBe(405);
    expect(up.seen).toHaveLength(0);
  });

  it('answers 429 with Retry-After past the client rate', async () => {
    const up = await upstream();
    const tg = await proxyGateway(up.url, {
      clients: [{ name: 'crm', key_sha256: sha(KEY), rate_per_minute: 2, allow: [{ paths: ['/api/*'] }] }],
    });
    const list = `/api/v5/orgs/${ORG}/unified_messaging`;
    expect((await tg.call('GET', list, undefined, auth)).status).toBe(200);
    expect((await tg.call('GET', list, undefined, auth)).status).toBe(200);
    const limited = await tg.call('GET', list, undefined, auth);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });

  it('turns an upstream that does not answer in time into 504 and one that is gone into 502, as JSON', async () => {
    const slow = await upstream(() => {}); // never answers
    const tg = await proxyGateway(slow.url, { timeout_ms: 300 });
    const res = await tg.call('GET', `/api/v5/orgs/${ORG}/unified_messaging`, undefined, auth);
    expect(res.status).toBe(504);
    expect(res.body.code).toBe('TG_UPSTREAM_TIMEOUT');

    const gone = await proxyGateway('http://127.0.0.1:9');
    const res2 = await gone.call('GET', `/api/v5/orgs/${ORG}/unified_messaging`, undefined, auth);
    expect(res2.status).toBe(502);
    expect(res2.body.code).toBe('TG_UPSTREAM_UNREACHABLE');
  });

  it("forward_caller_authorization passes the caller's own platform token through, with no gateway key", async () => {
    const up = await upstream();
    const tg = await proxyGateway(up.url, { clients: [], forward_caller_authorization: true });
    const res = await tg.call('GET', `/api/v5/orgs/${ORG}/unified_messaging`, undefined, { authorization: 'Bearer callers-own-access-token' });
    expect(res.status).toBe(200);
    expect(up.seen[0]!.headers.authorization).toBe('Bearer callers-own-access-token');
  });

  it('forwards X-PRIVATE-KEY to the platform but never writes it to the log', async () => {
    const up = await upstream();
    const lines: string[] = [];
    const tg = await proxyGateway(up.url, { clients: [{ name: 'crm', key_sha256: sha(KEY), allow: [{ paths: ['/api/*'] }] }] }, lines);
    const key = '-----BEGIN RSA PRIVATE KEY-----\\nMIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf9Cnzj4p4WGeKLs1Pt8Qu\\n-----END RSA PRIVATE KEY-----';
    const res = await tg.call('GET', `/api/v5/orgs/${ORG}/rooms/r-1/decrypted-chats`, undefined, { ...auth, 'x-private-key': key });
    expect(res.status).toBe(200);
    expect(up.seen[0]!.headers['x-private-key']).toBe(key);
    const log = lines.join('');
    expect(log).toContain('"msg":"proxied"'); // the call was logged (trace level), just not the key
    expect(log).not.toContain('MIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf9Cnzj4p4WGeKLs1Pt8Qu');
    expect(log).not.toContain(KEY);
  });

  it('answers a repeated unified-messaging post from the store instead of posting it twice', async () => {
    let n = 0;
    const up = await upstream((_req, res) => {
      n += 1;
      res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ chat_id: ORG, mapping_id: ORG, message_ids: [`m-${n}`], messages_created: 1, is_new_session: n === 1 }));
    });
    const tg = await proxyGateway(up.url);
    const path = `/api/v5/orgs/${ORG}/unified_messaging/cfg-1/messages`;
    const post = (ids: string[]) =>
      tg.call('POST', path, { messages: ids.map((id) => ({ body: 'hi', thread_id: 't-1', sender_id: 'ann@example.com', message_id: id })) }, auth);
    const first = await post(['<a@x>']);
    expect(first.status).toBe(201);
    const again = await post(['<a@x>']);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers['x-threadgate-replayed']).toBe('true');
    expect(up.seen).toHaveLength(1);
    const mixed = await post(['<a@x>', '<b@x>']); // one new id: posted as it is
    expect(mixed.headers['x-threadgate-replayed']).toBeUndefined();
    expect(up.seen).toHaveLength(2);
    const [x, y] = await Promise.all([post(['<c@x>']), post(['<c@x>'])]); // racing copies: posted once
    expect([x.status, y.status]).toEqual([201, 201]);
    expect(up.seen).toHaveLength(3);
  });

  it('streams a 10 MB download: the first bytes reach the caller before the upstream has sent the rest', async () => {
    const MB = 1024 * 1024;
    let sentAll = false;
    const up = await upstream((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/csv', 'content-length': String(10 * MB) });
      let sent = 0;
      const push = () => {
        if (sent >= 10 * MB) {
          sentAll = true;
          return void res.end();
        }
        res.write(Buffer.alloc(MB, 0x61));
        sent += MB;
        setTimeout(push, 20);
      };
      push();
    });
    const tg = await proxyGateway(up.url, { passthrough_unknown: true, clients: [{ name: 'crm', key_sha256: sha(KEY), allow: [{ paths: ['/api/*'] }] }] });
    const res = await request(`${tg.gateway.url}/api/reporting/export.csv`, { headers: auth });
    expect(res.statusCode).toBe(200);
    let received = 0;
    let firstChunkBeforeEnd: boolean | undefined;
    for await (const chunk of res.body) {
      if (firstChunkBeforeEnd === undefined) firstChunkBeforeEnd = !sentAll;
      received += (chunk as Buffer).length;
    }
    expect(firstChunkBeforeEnd).toBe(true);
    expect(received).toBe(10 * MB);
  });
});
