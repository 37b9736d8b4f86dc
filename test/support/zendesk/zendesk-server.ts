/**
 * The counterpart's HTTP server: a real server on port 0 that routes each
 * request (zendesk-routes.ts, zendesk-write-routes.ts, zendesk-export.ts,
 * zendesk-files-host.ts), authenticates it, counts it against the rate limits
 * (zendesk-auth.ts) and answers JSON the way Zendesk does — its error bodies
 * (zendesk-errors.ts), a `Date` header from the account's clock (which a test
 * may move), the rate-limit headers on every answer. Every request is
 * recorded (method, path, query, status, when by the machine's clock) for
 * tests that check what was asked and how often.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buffer as readBody } from 'node:stream/consumers';
import { authenticate, type RateLimits } from './zendesk-auth.ts';
import { noEndpoint, unauthenticated, ZdError } from './zendesk-errors.ts';
import { exportRoute } from './zendesk-export.ts';
import { fileRoutes } from './zendesk-files-host.ts';
import { readRoutes, type Answer, type Desk, type Route } from './zendesk-routes.ts';
import { writeRoutes } from './zendesk-write-routes.ts';

const ROUTES: Route[] = [...readRoutes, ...writeRoutes, exportRoute, ...fileRoutes];

export interface RecordedRequest {
  method: string;
  path: string;
  query: string;
  status: number;
  /** The machine's time it was answered (ms). */
  at: number;
  /** The e-mail address of the user it was authenticated as. */
  user: string | undefined;
  /** The Retry-After it was answered with (seconds), if any. */
  retryAfter: number | undefined;
}

export interface DeskServer {
  url: string;
  requests: RecordedRequest[];
  /** Requests whose "METHOD /path" matches answer with this status (and body) instead, `times` times. */
  failures: { match: RegExp; status: number; times: number; retryAfter?: number }[];
  close(): Promise<void>;
}

function route(method: string, path: string): { route: Route; params: string[] } {
  for (const candidate of ROUTES) {
    const match = candidate.pattern.exec(path);
    if (match && candidate.method === method) return { route: candidate, params: match.slice(1) };
  }
  throw noEndpoint();
}

/** Starts the server; `desk` is completed with the server's own address (`root`) once it listens. */
export async function startDeskServer(desk: Omit<Desk, 'root'> & { root?: string }, limits: RateLimits): Promise<DeskServer & { root: string }> {
  const requests: RecordedRequest[] = [];
  const failures: DeskServer['failures'] = [];
  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const url = new URL(req.url ?? '/', 'http://desk');
      const method = req.method ?? 'GET';
      let answer: Answer;
      let user: string | undefined;
      try {
        const failure = failures.find((f) => f.times > 0 && f.match.test(`${method} ${url.pathname}`));
        if (failure) {
          failure.times -= 1;
          const retry: Record<string, string> = failure.retryAfter === undefined ? {} : { 'retry-after': String(failure.retryAfter) };
          throw new ZdError(failure.status, { error: failure.status === 429 ? 'APIRateLimitExceeded' : 'InternalError', description: 'As the test ordered' }, retry);
        }
        const found = route(method, url.pathname);
        const caller = authenticate(req.headers.authorization, desk.store);
        user = caller?.email;
        if (!caller && !found.route.anonymous) throw unauthenticated();
        limits.take('api');
        if (found.route.exportLimit) limits.take('export');
        answer = found.route.handle({ method, path: url.pathname, query: url.searchParams, params: found.params, user: caller, headers: req.headers, body }, desk as Desk);
      } catch (err) {
        if (!(err instanceof ZdError)) throw err;
        answer = { status: err.status, body: err.body, headers: err.headers };
      }
      const retryAfter = answer.headers?.['retry-after'];
      requests.push({ method, path: url.pathname, query: url.search, status: answer.status, at: Date.now(), user, retryAfter: retryAfter === undefined ? undefined : Number(retryAfter) });
      const headers: Record<string, string> = { date: new Date(desk.clock.now()).toUTCString(), ...limits.headers(), ...answer.headers };
      if (answer.raw !== undefined) {
        res.writeHead(answer.status, { 'content-type': 'text/html; charset=utf-8', ...headers }).end(answer.raw);
      } else {
        const text = answer.body === undefined ? '' : JSON.stringify(answer.body);
        res.writeHead(answer.status, { 'content-type': 'application/json; charset=utf-8', ...headers }).end(text);
      }
    })().catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'InternalError', description: String(err) }));
      else res.destroy();
    });
  });
  // Its connections never hold the test process (the contract suite counts what a connector leaves open).
  server.on('connection', (socket) => socket.unref());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const root = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  desk.root = root;
  return {
    url: root,
    root,
    requests,
    failures,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
