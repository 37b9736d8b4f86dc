/**
 * A real HTTP server on 127.0.0.1, port 0, standing in for the system that
 * receives agent replies. It verifies every request with the
 * `standardwebhooks` library (as a receiver would) and answers with the reply
 * the test scripted for that request.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The verified JSON, or the library's reason for refusing it. */
  verified: { ok: true; payload: unknown } | { ok: false; reason: string };
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  /** Wait this long before the status line. */
  delayMs?: number;
  /** Send status and headers, then hold the body back this long. */
  stallBodyMs?: number;
}

export type Script = (request: ReceivedRequest, index: number) => Reply;

export interface Receiver {
  url: string;
  requests: ReceivedRequest[];
  /** Connections the client opened, and how many of them it has closed. */
  connections: { opened: number; closed: number };
  /** Resolves when the server finished writing the response of request `index`. */
  finished(index: number): Promise<void>;
  close(): Promise<void>;
}

function verify(secret: string, body: string, headers: IncomingHttpHeaders): ReceivedRequest['verified'] {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (typeof value === 'string') flat[name] = value;
  try {
    return { ok: true, payload: new Webhook(secret).verify(body, flat) };
  } catch (err) {
    return { ok: false, reason: (err as Error).message };
  }
}

export async function startReceiver(secret: string, script: Script): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const done: Promise<void>[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const later = (ms: number, fn: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      fn();
    }, ms);
    timers.add(timer);
  };

  const server = createServer((req, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const received: ReceivedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body,
        verified: verify(secret, body, req.headers),
      };
      const index = requests.push(received) - 1;
      done[index] = new Promise((resolve) => res.on('finish', () => resolve()));
      const reply = script(received, index);
      const send = () => {
        res.writeHead(reply.status, { 'content-type': 'text/plain', ...reply.headers });
        if (reply.stallBodyMs === undefined) {
          res.end(reply.body ?? '');
          return;
        }
        res.write('partial ');
        later(reply.stallBodyMs, () => res.end(reply.body ?? ''));
      };
      if (reply.delayMs === undefined) send();
      else later(reply.delayMs, send);
    });
  });
  const connections = { opened: 0, closed: 0 };
  server.on('connection', (socket) => {
    connections.opened += 1;
    socket.on('close', () => {
      connections.closed += 1;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    connections,
    url: `http://127.0.0.1:${port}/hooks/threadgate?token=path-secret`,
    requests,
    async finished(index) {
      await done[index];
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
