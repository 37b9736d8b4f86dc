/**
 * Three recording HTTP servers on port 0 standing in for the platform's
 * upstreams (api, builder, auth): each request is recorded whole (method,
 * url, headers, body bytes) and answered by the given function, which reads
 * the endpoint id the caller put in `x-contract-endpoint`. Shared by the
 * proxy's and the typed client's contract tests.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Upstream } from '../../src/platform/endpoints/types.ts';

export interface Recorded {
  upstream: Upstream;
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Buffer | string;
}

export interface RecordingUpstreams {
  urls: Record<Upstream, string>;
  /** Every request so far, in arrival order; clear it with `seen.length = 0`. */
  seen: Recorded[];
  close(): Promise<void>;
}

export async function startRecordingUpstreams(answer: (upstream: Upstream, id: string, method: string) => Answer): Promise<RecordingUpstreams> {
  const seen: Recorded[] = [];
  const servers: Server[] = [];
  const urls = {} as Record<Upstream, string>;
  for (const name of ['api', 'builder', 'auth'] as const) {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        seen.push({ upstream: name, method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) });
        const reply = answer(name, String(req.headers['x-contract-endpoint'] ?? ''), req.method ?? '');
        res.writeHead(reply.status, reply.headers).end(reply.body);
      });
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    urls[name] = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }
  return {
    urls,
    seen,
    close: async () => {
      for (const server of servers) {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    },
  };
}
