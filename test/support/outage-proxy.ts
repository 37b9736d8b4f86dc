/**
 * A real HTTP proxy in front of the sandbox that a test can take down: in
 * `up` mode it forwards every request unchanged; `503` answers 503 itself;
 * `reset` destroys each connection without an answer; `401` refuses every
 * token as an expired one. Tokens in `revoked` are refused with 401 in `up`
 * mode too (a token rotated away). The platform's state (the sandbox behind)
 * survives the outage, as a real one's would. Requests that `hold` picks wait
 * before they are forwarded until `release()`, counted while they wait.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buffer as readBody } from 'node:stream/consumers';
import { request } from 'undici';
import { onTestFinished } from 'vitest';

export type ProxyMode = 'up' | '503' | 'reset' | '401';

export interface OutageProxy {
  url: string;
  mode: ProxyMode;
  /** Requests that were not forwarded (not `up`, or a revoked token). */
  refused: number;
  /** Tokens answered with 401 whatever the mode. */
  revoked: Set<string>;
  /** Which forwarded requests wait for `release()`. */
  hold: ((method: string, url: string) => boolean) | undefined;
  /** Requests waiting now, and the most that waited at once. */
  held: number;
  peakHeld: number;
  /** Forwards every request waiting now. */
  release(): void;
}

export async function startOutageProxy(target: string): Promise<OutageProxy> {
  const waiting: (() => void)[] = [];
  const release = () => waiting.splice(0).forEach((go) => go());
  const state: OutageProxy = { url: '', mode: 'up', refused: 0, revoked: new Set(), hold: undefined, held: 0, peakHeld: 0, release };
  const server = createServer((req, res) => {
    const token = /^\S+\s+(\S+)$/.exec(req.headers.authorization ?? '')?.[1];
    const refusesToken = state.mode === '401' || (token !== undefined && state.revoked.has(token));
    if (state.mode !== 'up' || refusesToken) {
      state.refused += 1;
      if (state.mode === 'reset') {
        req.socket.destroy();
        return;
      }
      if (refusesToken) {
        res.writeHead(401, { 'content-type': 'application/json' }).end('{"detail":"Token expired."}');
        return;
      }
      res.writeHead(503, { 'content-type': 'application/json' }).end('{"detail":"Service unavailable."}');
      return;
    }
    void (async () => {
      const body = await readBody(req);
      if (state.hold?.(req.method ?? '', req.url ?? '')) {
        state.peakHeld = Math.max(state.peakHeld, ++state.held);
        await new Promise<void>((go) => waiting.push(go));
        state.held -= 1;
      }
      const headers = { ...req.headers };
      delete headers.host;
      delete headers.connection;
      const upstream = await request(`${target}${req.url ?? '/'}`, {
        method: req.method as 'GET',
        headers,
        body: body.length > 0 ? body : undefined,
      });
      const answer = Buffer.from(await upstream.body.arrayBuffer());
      const outHeaders = { ...upstream.headers };
      delete outHeaders['transfer-encoding'];
      delete outHeaders.connection;
      res.writeHead(upstream.statusCode, outHeaders).end(answer);
    })().catch(() => req.socket.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(async () => {
    release();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}
