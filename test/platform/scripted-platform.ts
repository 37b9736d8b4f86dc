/**
 * A real HTTP server on 127.0.0.1, port 0, that stands in for the platform
 * with a script: each request takes the next reply, and the last reply
 * repeats for ever. Every request is recorded (method, url, headers, body).
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  /** Path and query as received. */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  /** A string is sent as is; anything else as JSON. Absent: no body. */
  body?: unknown;
  /** Wait before the status line is sent. */
  delayMs?: number;
  /** Send the status line and headers, then never finish the body. */
  stallBody?: boolean;
}

export type Script = Reply | ((req: RecordedRequest, index: number, origin: string) => Reply);

export interface ScriptedPlatform {
  origin: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export async function startScriptedPlatform(script: Script[]): Promise<ScriptedPlatform> {
  if (script.length === 0) throw new TypeError('script needs at least one reply');
  const requests: RecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let origin = '';

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      const index = requests.push(recorded) - 1;
      const step = script[Math.min(index, script.length - 1)]!;
      const reply = typeof step === 'function' ? step(recorded, index, origin) : step;
      const send = () => {
        timers.delete(timer);
        const text =
          reply.body === undefined ? '' : typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
        const type = typeof reply.body === 'string' ? 'text/plain' : 'application/json';
        res.writeHead(reply.status, {
          ...(text === '' ? {} : { 'content-type': type }),
          'content-length': String(Buffer.byteLength(text) + (reply.stallBody ? 1 : 0)),
          ...reply.headers,
        });
        if (reply.stallBody) res.write(text);
        else res.end(text);
      };
      const timer = setTimeout(send, reply.delayMs ?? 0);
      timers.add(timer);
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    origin,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) clearTimeout(t);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
