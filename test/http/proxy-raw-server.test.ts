/**
 * Proxied calls are served by the gateway's HTTP server before Fastify (the
 * proxy's hot path): what that keeps and what it leaves out, seen from
 * outside — no request log at info for a call that went well (Fastify's own
 * lines are not built), a HEAD still answered by Fastify's route, and a call
 * that arrives while the gateway is stopping answered 503 with
 * `Connection: close` after the call in flight before it was answered — and
 * a key checked per call even when a keep-alive connection changes it.
 */
import { connect } from 'node:net';
import { Client } from 'undici';
import { describe, expect, it, onTestFinished } from 'vitest';
import { PROXY_KEY, PROXY_ORG, proxyAuth, proxyGateway, recordingUpstream, sha256Hex } from '../support/proxy-upstream.ts';
import { rawRequest } from '../support/raw-http.ts';

const UM = `/api/v5/orgs/${PROXY_ORG}/unified_messaging`;

/** Pino's numeric levels of the lines that mention `text`. */
function levelsMentioning(lines: string[], text: string): number[] {
  return lines.filter((l) => l.includes(text)).map((l) => (JSON.parse(l) as { level: number }).level);
}

describe('the proxy on the gateway server', () => {
  it('writes nothing at info for a proxied call that went well, while other routes keep their request log', async () => {
    const up = await recordingUpstream();
    const lines: string[] = [];
    const tg = await proxyGateway(up.url, {}, lines);
    const answer = await fetch(`${tg.gateway.url}${UM}`, { headers: proxyAuth });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ results: [] });
    await fetch(`${tg.gateway.url}/healthz`);
    await new Promise((r) => setTimeout(r, 50));

    // The call is written once, at debug, with its client and template; nothing about it at info or above.
    const proxied = lines.filter((l) => l.includes('"msg":"proxied"')).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(proxied).toEqual([expect.objectContaining({ level: 20, client: 'crm', method: 'GET', template: '/api/v5/orgs/<organization_id>/unified_messaging', status: 200 })]);
    expect(levelsMentioning(lines, UM).filter((level) => level >= 30)).toEqual([]);
    // Fastify's request log still covers its own routes.
    expect(levelsMentioning(lines, '"url":"/healthz"')).toContain(30);
  });

  it('answers a HEAD on a proxied path through Fastify: 405, nothing sent upstream', async () => {
    const up = await recordingUpstream();
    const tg = await proxyGateway(up.url);
    const answer = await fetch(`${tg.gateway.url}${UM}`, { method: 'HEAD', headers: proxyAuth });
    expect(answer.status).toBe(405);
    expect(up.seen).toEqual([]);
  });

  it('answers a call that arrives while the gateway stops 503 TG_CLOSING with Connection: close, after the call in flight', async () => {
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const up = await recordingUpstream((_req, res) => void released.then(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{"results":["first"]}')));
    const tg = await proxyGateway(up.url);
    const { hostname, port } = new URL(tg.gateway.url);
    const socket = connect(Number(port), hostname);
    const request = (target: string) => `GET ${target} HTTP/1.1\r\nhost: ${hostname}:${port}\r\nauthorization: ${proxyAuth.authorization}\r\n\r\n`;
    const received: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    const ended = new Promise<void>((r) => socket.once('close', () => r()));

    socket.write(request(UM));
    await expect.poll(() => up.seen.length).toBe(1);
    const closed = tg.gateway.close();
    await new Promise((r) => setTimeout(r, 100)); // the server has begun closing; this connection is busy, so kept
    socket.write(request(`${UM}?second=1`)); // on the same connection, after the stop began
    await new Promise((r) => setTimeout(r, 100));
    release();
    await ended;
    await closed;

    const text = Buffer.concat(received).toString('utf8');
    const heads = [...text.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => Number(m[1]));
    expect(heads).toEqual([200, 503]);
    expect(text).toContain('{"results":["first"]}');
    const second = text.slice(text.lastIndexOf('HTTP/1.1 503'));
    expect(second).toMatch(/\r\nconnection: close\r\n/i);
    expect(JSON.parse(second.slice(second.indexOf('\r\n\r\n') + 4))).toEqual({ code: 'TG_CLOSING', message: 'the gateway is shutting down' });
    expect(up.seen).toHaveLength(1); // the second call never left
  });

  it('refuses a broken escape in a proxied path with 400 naming path, as Fastify did', async () => {
    const up = await recordingUpstream();
    const tg = await proxyGateway(up.url);
    const answer = await rawRequest(tg.gateway.url, 'GET', `${UM}/%zz`, proxyAuth);
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({ code: 'TG_PATH_INVALID', errors: [{ path: 'path' }] });
    expect(up.seen).toEqual([]);
  });

  it('checks the key of every call on one keep-alive connection, also when the connection changes keys', async () => {
    const up = await recordingUpstream();
    const narrow = { name: 'narrow', key_sha256: sha256Hex('narrow-key-0123456789'), allow: [{ methods: ['GET'], paths: [`/api/v5/orgs/<organization_id>/users/*`] }] };
    const crm = { name: 'crm', key_sha256: sha256Hex(PROXY_KEY), allow: [{ methods: ['GET'], paths: [UM] }] };
    const tg = await proxyGateway(up.url, { clients: [crm, narrow] });
    const client = new Client(tg.gateway.url, { pipelining: 1 });
    onTestFinished(() => client.close());
    let connections = 0;
    client.on('connect', () => connections++);
    const call = async (authorization?: string) => {
      const answer = await client.request({ method: 'GET', path: UM, headers: authorization ? { authorization } : {} });
      const body = (await answer.body.json()) as { code?: string; message?: string };
      return { status: answer.statusCode, code: body.code, message: body.message };
    };
    expect((await call(proxyAuth.authorization)).status).toBe(200);
    expect(await call('Bearer narrow-key-0123456789')).toEqual({ status: 403, code: 'TG_PROXY_FORBIDDEN', message: `client narrow may not GET ${UM}` });
    expect(await call('Bearer not-a-key')).toMatchObject({ status: 401, code: 'TG_PROXY_UNAUTHORIZED' });
    expect((await call(proxyAuth.authorization)).status).toBe(200);
    expect(await call()).toMatchObject({ status: 401, code: 'TG_PROXY_UNAUTHORIZED' });
    expect(await call(`Basic ${PROXY_KEY}`)).toMatchObject({ status: 401, code: 'TG_PROXY_UNAUTHORIZED' });
    expect(connections).toBe(1);
    expect(up.seen).toHaveLength(2);
  });
});
