/**
 * What stands between Telegram and a gateway in webhook mode: the address in
 * `webhook_url` (a reverse proxy, a load balancer at `server.public_url`),
 * forwarding each request as it came — method, path, headers, body — to the
 * gateway, and its answer back. A test needs it because the gateway's own
 * port is known only after it started, while `webhook_url` is a setting the
 * gateway starts with: the relay listens first, and `target` is set once the
 * gateway runs. Until then it answers 502, as a proxy with no upstream does.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buffer as readBody } from 'node:stream/consumers';

export interface WebhookRelay {
  /** The relay's own root (`http://127.0.0.1:<port>`). */
  url: string;
  /** The gateway's root the requests go to; undefined: 502. */
  target: string | undefined;
  /** Requests relayed (and answered 502), for the test. */
  relayed: { path: string; status: number }[];
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'host', 'content-length']);

export async function startWebhookRelay(): Promise<WebhookRelay> {
  const relay: WebhookRelay = { url: '', target: undefined, relayed: [], close: async () => {} };
  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const path = req.url ?? '/';
      if (relay.target === undefined) {
        relay.relayed.push({ path, status: 502 });
        res.writeHead(502).end();
        return;
      }
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(name) && typeof value === 'string') headers[name] = value;
      const answer = await fetch(`${relay.target}${path}`, { method: req.method ?? 'GET', headers, ...(body.length > 0 ? { body: new Uint8Array(body) } : {}), redirect: 'manual' });
      const bytes = Buffer.from(await answer.arrayBuffer());
      relay.relayed.push({ path, status: answer.status });
      res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/octet-stream' }).end(bytes);
    })().catch(() => {
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
  });
  server.on('connection', (socket) => socket.unref());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  relay.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  relay.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return relay;
}
