/**
 * A small round-robin HTTP load balancer on a real port, in front of several
 * gateway replicas — what nginx or a cloud balancer does for the compose file
 * in docs/deployment.md. Each request goes to the next upstream; when that one
 * refuses the connection (a replica that is down or restarting) the request,
 * not sent yet, goes to the next one (nginx's `proxy_next_upstream error`).
 * A connection that fails after the request went out is answered 502, as a
 * real balancer does: the sender retries. Closed after the test.
 */
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buffer as readBody } from 'node:stream/consumers';
import { onTestFinished } from 'vitest';

export interface Balancer {
  url: string;
  /** Requests answered 502 by the balancer itself (an upstream failed mid-request, or none was up). */
  failed: number;
  close(): Promise<void>;
}

type Outcome = 'done' | 'refused';

/** Sends the request to one upstream; 'refused' when it could not connect (nothing was sent). */
function forward(port: number, req: IncomingMessage, body: Buffer, res: ServerResponse): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const upstream = request(
      { host: '127.0.0.1', port, method: req.method, path: req.url, headers: { ...req.headers, connection: 'close' } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        answer.on('end', () => resolve('done'));
        answer.on('error', reject);
      },
    );
    upstream.on('error', (err: NodeJS.ErrnoException) => (err.code === 'ECONNREFUSED' ? resolve('refused') : reject(err)));
    upstream.end(body);
  });
}

/** `ports()` is asked on every request: the upstreams may change while it runs. */
export async function startBalancer(ports: () => readonly number[]): Promise<Balancer> {
  let next = 0;
  const balancer: Balancer = { url: '', failed: 0, close: async () => {} };
  const server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const upstreams = ports();
      try {
        for (let tried = 0; tried < upstreams.length; tried++) {
          const port = upstreams[next++ % upstreams.length]!;
          if ((await forward(port, req, body, res)) === 'done') return;
        }
        throw new Error('no upstream is up');
      } catch (err) {
        balancer.failed += 1;
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' }).end(JSON.stringify({ error: (err as Error).message }));
        else res.destroy();
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  balancer.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  balancer.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  onTestFinished(() => balancer.close());
  return balancer;
}
