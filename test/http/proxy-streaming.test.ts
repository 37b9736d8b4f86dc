/**
 * Bodies through the proxy, seen from both ends: an upload reaches the
 * platform while the caller is still sending it, an answer keeps the
 * platform's Content-Length, and a caller that leaves — before the platform
 * answered or in the middle of a download — makes the proxy give up the
 * platform request instead of holding its connection; the next call still
 * goes through.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { describe, expect, it, onTestFinished } from 'vitest';
import { PROXY_KEY as KEY, PROXY_ORG as ORG, proxyAuth as auth, proxyGateway, recordingUpstream, sha256Hex as sha } from '../support/proxy-upstream.ts';
import { sleep, until } from '../support/wait.ts';

const MB = 1024 * 1024;
const LIST = `/api/v5/orgs/${ORG}/unified_messaging`;
const anyPath = { passthrough_unknown: true, clients: [{ name: 'crm', key_sha256: sha(KEY), allow: [{ paths: ['/api/*'] }] }] };

/** An upstream that hands each request to `script` as it arrives (body unread), on port 0. */
async function liveUpstream(script: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createServer(script);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const closedBeforeDone = (res: ServerResponse) => new Promise<void>((resolve) => res.once('close', () => res.writableFinished || resolve()));

describe('bodies through the proxy', () => {
  it('streams an upload: the platform gets the first bytes before the caller has sent the rest', async () => {
    let firstChunkAt = 0;
    let received = 0;
    const url = await liveUpstream((req, res) => {
      req.on('data', (chunk: Buffer) => {
        firstChunkAt ||= Date.now();
        received += chunk.length;
      });
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ received })));
    });
    const tg = await proxyGateway(url, anyPath);
    let lastSentAt = 0;
    async function* body(): AsyncGenerator<Buffer> {
      for (let i = 0; i < 8; i++) {
        if (i === 7) lastSentAt = Date.now(); // the last megabyte is only now made
        yield Buffer.alloc(MB, 0x5a);
        await sleep(30);
      }
    }
    const res = await request(`${tg.gateway.url}/api/v5/orgs/${ORG}/users/u-1/avatar`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'multipart/form-data; boundary=x', 'content-length': String(8 * MB) },
      body: Readable.from(body()),
    });
    expect(res.statusCode).toBe(200);
    expect(await res.body.json()).toEqual({ received: 8 * MB });
    expect(firstChunkAt).toBeGreaterThan(0);
    expect(firstChunkAt).toBeLessThan(lastSentAt);
  });

  it("passes the platform's Content-Length on, so the caller gets the answer unchunked", async () => {
    const up = await recordingUpstream((_req, res) => res.writeHead(200, { 'content-type': 'application/json', 'content-length': '14' }).end('{"results":[]}'));
    const tg = await proxyGateway(up.url);
    const res = await request(`${tg.gateway.url}${LIST}`, { headers: auth });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-length']).toBe('14');
    expect(res.headers['transfer-encoding']).toBeUndefined();
    expect(await res.body.text()).toBe('{"results":[]}');
  });

  it('gives up the platform request when the caller leaves before the answer, and goes on serving', async () => {
    let first = true;
    let upstreamSawClose: Promise<void> | undefined;
    const url = await liveUpstream((_req, res) => {
      if (!first) return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"results":[]}');
      first = false;
      upstreamSawClose = closedBeforeDone(res); // never answered: only the proxy can end it
    });
    const tg = await proxyGateway(url);
    const leaving = new AbortController();
    const call = request(`${tg.gateway.url}${LIST}`, { headers: auth, signal: leaving.signal });
    await until(() => upstreamSawClose !== undefined, 5_000, 'the request at the platform');
    leaving.abort();
    await expect(call).rejects.toThrow();
    await upstreamSawClose; // the proxy closed its side: the connection is not held for an answer nobody reads
    const next = await tg.call('GET', LIST, undefined, auth);
    expect(next.status).toBe(200);
  });

  it('stops reading a download from the platform when the caller leaves in the middle', async () => {
    let upstreamSawClose: Promise<void> | undefined;
    let sent = 0;
    const url = await liveUpstream((_req, res) => {
      upstreamSawClose = closedBeforeDone(res);
      res.writeHead(200, { 'content-type': 'text/csv', 'content-length': String(200 * MB) });
      const push = () => {
        while (sent < 200 * MB && !res.destroyed) {
          sent += 64 * 1024;
          if (!res.write(Buffer.alloc(64 * 1024, 0x61))) return void res.once('drain', push);
        }
      };
      push();
    });
    const tg = await proxyGateway(url, anyPath);
    const res = await request(`${tg.gateway.url}/api/reporting/export.csv`, { headers: auth });
    let received = 0;
    for await (const chunk of res.body) {
      received += (chunk as Buffer).length;
      if (received >= MB) break; // leaves: the body is destroyed, the connection closed
    }
    await upstreamSawClose;
    expect(sent).toBeLessThan(200 * MB);
  });
});
