/**
 * The Jira Service Management counterpart's HTTP server: a real server on
 * 127.0.0.1, port 0, in front of an in-memory `JsmStore`. Every call is
 * authenticated (jsm-gate.ts: Basic e-mail and API token, else 401), then
 * rate limited (429 with Retry-After), then routed to the platform API
 * (jsm-platform-routes.ts) or the Service Management API
 * (jsm-desk-routes.ts). A path it does not know is 404 as Jira's REST layer
 * answers it (`{"message": "null for uri: …", "status-code": 404}`). The
 * media host a file's default download redirects to is served under
 * `/media-file/<id>?token=…`, without credentials, as Atlassian's is.
 *
 * Answers carry a `Date` header (the site's clock, `JsmStore.siteNow`, whole seconds). `onRequest`
 * lets a test act between two calls (change a request between two search
 * pages, or throttle the account as a call arrives); `requests` lists every
 * call as `METHOD /path?query`, `answers` the status each got and when.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buffer as readBody } from 'node:stream/consumers';
import { deskError } from './jsm-dto.ts';
import { deskRoutes } from './jsm-desk-routes.ts';
import { JsmGate, UNAUTHENTICATED } from './jsm-gate.ts';
import { mediaToken, platformRoutes } from './jsm-platform-routes.ts';
import { Refused, type Answer, type Call, type Knobs } from './jsm-routes.ts';
import type { JsmStore } from './jsm-store.ts';

const ROUTES = [...platformRoutes, ...deskRoutes];

export interface JsmServer {
  url: string;
  gate: JsmGate;
  knobs: Knobs;
  /** Every call, as `GET /rest/api/3/myself` (with its query), oldest first. */
  requests: string[];
  /** Every answer to an authenticated call (or its refusal), oldest first. */
  answers: { at: number; method: string; path: string; status: number; retryAfterS?: number }[];
  /** Runs before each authenticated call is admitted (a limit it sets applies to that call) and answered. */
  onRequest: ((call: { method: string; path: string; accountId: string }) => void | Promise<void>) | undefined;
  close(): Promise<void>;
}

function send(res: ServerResponse, answer: Answer, now: number): void {
  const headers: Record<string, string> = { date: new Date(now).toUTCString(), ...answer.headers };
  let payload: Buffer | undefined = answer.raw;
  if (payload === undefined && answer.body !== undefined) {
    payload = Buffer.from(JSON.stringify(answer.body));
    headers['content-type'] ??= 'application/json;charset=UTF-8';
  }
  if (payload !== undefined) headers['content-length'] = String(payload.length);
  res.writeHead(answer.status, headers).end(payload);
}

export async function startJsmServer(store: JsmStore, knobs: Partial<Knobs> = {}): Promise<JsmServer> {
  const gate = new JsmGate(store);
  const state: JsmServer = {
    url: '',
    gate,
    knobs: { expandPage: 50, maxLimit: 100, searchPageCap: 5000, ...knobs },
    requests: [],
    answers: [],
    onRequest: undefined,
    close: async () => {},
  };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', state.url);
    const body = await readBody(req);
    const method = req.method ?? 'GET';
    state.requests.push(`${method} ${url.pathname}${url.search}`);
    const media = /^\/media-file\/(\d+)$/.exec(url.pathname);
    if (media && method === 'GET') {
      const file = store.files.get(Number(media[1]));
      if (!file || url.searchParams.get('token') !== mediaToken(file.id)) return send(res, { status: 404, body: { error: 'not found' } }, store.siteNow());
      return send(res, { status: 200, raw: file.content, headers: { 'content-type': file.mimeType } }, store.siteNow());
    }
    const user = gate.authenticate(req.headers.authorization);
    if (!user) return answer(UNAUTHENTICATED);
    await state.onRequest?.({ method, path: url.pathname, accountId: user.accountId });
    const limited = gate.admit(user);
    if (limited) return answer(limited);
    const call: Call = { method, url, headers: req.headers, body, user, view: { store, base: state.url, viewer: user }, store, gate, knobs: state.knobs };
    for (const route of ROUTES) {
      const match = route.method === method ? route.pattern.exec(url.pathname) : null;
      if (!match) continue;
      try {
        return answer(await route.handle(call, match));
      } catch (err) {
        if (err instanceof Refused) return answer(err.answer);
        throw err;
      }
    }
    answer({ status: 404, body: { message: `null for uri: ${url.href}`, 'status-code': 404 } });

    function answer(a: Answer): void {
      state.answers.push({ at: Date.now(), method, path: url.pathname, status: a.status, ...(a.headers?.['retry-after'] ? { retryAfterS: Number(a.headers['retry-after']) } : {}) });
      send(res, a, store.siteNow());
    }
  };
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => send(res, { status: 500, body: deskError(`Internal server error: ${(err as Error).message}`) }, store.siteNow()));
  });
  // The server's side of a kept-alive connection must not hold the test process (nor count as the client's open handle).
  server.on('connection', (socket) => socket.unref());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}
