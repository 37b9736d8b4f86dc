/**
 * A gate in front of a platform for a benchmark: every request is passed on
 * to the platform as it came, except that while the gate is held, requests
 * that create messages (`POST …/messages`) wait in it until it is released.
 * The connector intake's `held` case points its gateway here, so the gateway
 * accepts with none of its platform posts finishing (the 202 rate alone),
 * as the receiver's `held` case holds its deliveries.
 */
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface PlatformGate {
  url: string;
  /** From now on, message creations wait. */
  hold(): void;
  /** Passes on what waited, in the order it came, and every request after it. */
  release(): void;
  /** Message creations that waited in this hold so far. */
  readonly held: number;
  close(): Promise<void>;
}

export async function startPlatformGate(platformUrl: string): Promise<PlatformGate> {
  const target = new URL(platformUrl);
  let waiting: (() => void)[] | null = null;
  let held = 0;

  const forward = (req: IncomingMessage, res: ServerResponse) => {
    const out = request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    out.on('error', (err) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: `platform gate: ${err.message}` }));
    });
    req.pipe(out);
  };

  const server = createServer((req, res) => {
    const creates = req.method === 'POST' && /\/messages(\?|$)/.test(req.url ?? '');
    if (waiting && creates) {
      held += 1;
      // Paused until released: its body stays in the socket, read when it is passed on.
      req.pause();
      waiting.push(() => forward(req, res));
      return;
    }
    forward(req, res);
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    hold: () => {
      waiting ??= [];
      held = 0;
    },
    release: () => {
      const queued = waiting ?? [];
      waiting = null;
      for (const go of queued) go();
    },
    get held() {
      return held;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
