/**
 * The Zammad counterpart's HTTP server: a real server on 127.0.0.1, port 0,
 * speaking Zammad's REST API v1 from memory (zammad-routes.ts), for tests
 * that cannot reach a real Zammad. Each request is checked as Zammad and its
 * web server check it, in this order: nginx's body limit (413,
 * `client_max_body_size 50M` in Zammad's packaged nginx config), the
 * credentials (zammad-auth.ts: 401/403 in Zammad's JSON shape), the throttle
 * (429 with `Retry-After`, when one is set), the route (404), the JSON body
 * (400), then the route's own rules (403/404/422). Every answer carries a
 * `Date` header (Zammad's clock, whole seconds), as Rails behind nginx does.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ZammadGate } from './zammad-auth.ts';
import { ZammadApiError, badJson, noRoute, tooLarge } from './zammad-errors.ts';
import { route } from './zammad-routes.ts';
import { ZammadStore } from './zammad-store.ts';

export interface ZammadServer {
  url: string;
  store: ZammadStore;
  gate: ZammadGate;
  /** Queries the index refused (answered with no tickets, as Zammad does). */
  searchErrors: string[];
  /** Every request answered, in order: when it came (ms), method, path, query and the status answered. */
  requests: { at: number; method: string; path: string; query: Record<string, string>; status: number }[];
  /** The largest request body taken (default 50 MiB). */
  maxBodyBytes: number;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage, max: number): Promise<Buffer | undefined> {
  const announced = Number(req.headers['content-length'] ?? '');
  if (Number.isFinite(announced) && announced > max) return undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > max) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function send(res: ServerResponse, status: number, body: string | Buffer, headers: Record<string, string>): void {
  res.writeHead(status, { ...headers, 'content-length': String(Buffer.byteLength(body)) }).end(body);
}

export async function startZammadServer(store = new ZammadStore()): Promise<ZammadServer> {
  const gate = new ZammadGate(store);
  const state: ZammadServer = { url: '', store, gate, searchErrors: [], requests: [], maxBodyBytes: 50 * 1024 * 1024, close: async () => {} };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<number> => {
    const url = new URL(req.url ?? '/', 'http://zammad.invalid');
    const method = req.method ?? 'GET';
    const query = Object.fromEntries(url.searchParams);
    try {
      const raw = await readBody(req, state.maxBodyBytes);
      if (raw === undefined) {
        res.setHeader('connection', 'close');
        throw tooLarge();
      }
      const actor = gate.authenticate(req.headers);
      gate.count(String(req.headers.authorization));
      const found = route(method, url.pathname);
      if (!found) throw noRoute(method, url.pathname);
      let body: Record<string, unknown> = {};
      if (raw.length > 0) {
        try {
          const parsed = JSON.parse(raw.toString('utf8')) as unknown;
          if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) body = parsed as Record<string, unknown>;
        } catch {
          throw badJson();
        }
      }
      const answer = found.handler({ store, actor, params: found.params, query, body, searchErrors: state.searchErrors });
      if ('bytes' in answer) send(res, answer.status, answer.bytes, answer.headers);
      else send(res, answer.status, JSON.stringify(answer.json), { 'content-type': 'application/json; charset=utf-8' });
      return answer.status;
    } catch (err) {
      const refusal = err instanceof ZammadApiError ? err : new ZammadApiError(500, { error: `Error ID ${Math.random().toString(36).slice(2, 10)}: Please contact your administrator.` });
      send(res, refusal.status, refusal.body, refusal.headers);
      return refusal.status;
    }
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://zammad.invalid');
    const at = Date.now();
    void handle(req, res).then(
      (status) => state.requests.push({ at, method: req.method ?? 'GET', path: url.pathname, query: Object.fromEntries(url.searchParams), status }),
      () => req.socket.destroy(),
    );
  });
  // Zammad runs in a process of its own: its end of a connection keeps nothing of the test's process alive.
  server.on('connection', (socket) => socket.unref());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return state;
}
