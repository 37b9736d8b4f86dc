/**
 * The counterpart's HTTP server: a real server on port 0 serving
 *
 *   /api/<method>          the Web API (https://api.slack.com/web): GET or POST; arguments from the query,
 *                          a form body, or a JSON body for the methods that take one (chat.postMessage and
 *                          the files.*External methods); a POST body without a Content-Type is
 *                          missing_post_type, one of another type invalid_post_type, broken JSON invalid_json
 *   /upload/v1/<file id>   the upload URL of files.getUploadURLExternal
 *   /files-pri/…           private file downloads (slack-uploads.ts), recorded as calls of `file download`;
 *   /                      the sign-in page
 *
 * The token comes as `Authorization: Bearer` (a JSON body needs it there) or
 * as a `token` argument: none is `not_authed`, an unknown one `invalid_auth`,
 * a revoked one `token_revoked` (https://api.slack.com/authentication/token-types).
 * Then each call is counted against its method's rate tier (slack-rate-tiers.ts:
 * 429, Retry-After, `ratelimited`) and answered Slack's way: HTTP 200 with
 * `{"ok": true, …}` or `{"ok": false, "error": "<word>"}`. A test may make
 * the next calls of a method fail (`failures`: a 429 with Retry-After, a 5xx,
 * or one of Slack's words). Every call is recorded (method, status, word,
 * when) without its token.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buffer as readBody } from 'node:stream/consumers';
import { setTimeout as sleep } from 'node:timers/promises';
import { conversationMethods } from './slack-conversations.ts';
import { SlackApiError, whoMethods, type ApiContext, type Method } from './slack-methods.ts';
import { RateLimited, type RateTiers } from './slack-rate-tiers.ts';
import { privateFile, receiveUpload, SIGN_IN_PAGE, uploadMethods } from './slack-uploads.ts';
import type { SlackWorkspace, WsUser } from './slack-workspace.ts';

const METHODS: Record<string, Method> = { ...whoMethods, ...conversationMethods, ...uploadMethods };
const TAKES_JSON = new Set(['chat.postMessage', 'files.getUploadURLExternal', 'files.completeUploadExternal']);

export interface RecordedCall {
  method: string;
  status: number;
  /** Slack's word of an `ok: false` answer. */
  error?: string;
  /** The Retry-After of a 429 (seconds). */
  retryAfter?: number;
  /** Whether the call carried a token of the workspace. */
  authorized: boolean;
  /** The machine's time it was answered (ms). */
  at: number;
  args: Record<string, unknown>;
}

/**
 * A failure a test orders for the next `times` calls of `method` (or `file download`): an HTTP status (429 with
 * `retryAfter`) or Slack's word; or, with `delayMs` alone, the usual answer that late.
 */
export interface OrderedFailure {
  method: string;
  times: number;
  status?: number;
  retryAfter?: number;
  error?: string;
  delayMs?: number;
}

export interface SlackServer {
  root: string;
  calls: RecordedCall[];
  failures: OrderedFailure[];
  close(): Promise<void>;
}

type Answer = { status: number; headers?: Record<string, string>; body: Buffer | string };

export async function startSlackServer(ws: SlackWorkspace, tiers: RateTiers, context: (root: string) => ApiContext): Promise<SlackServer> {
  const calls: RecordedCall[] = [];
  const failures: OrderedFailure[] = [];
  let api: ApiContext | undefined;
  let root = '';

  const callMethod = (method: string, req: IncomingMessage, url: URL, body: Buffer): Answer => {
    const args: Record<string, unknown> = Object.fromEntries(url.searchParams);
    const record = (status: number, extra: Partial<RecordedCall> = {}) => {
      const { token: _token, ...shown } = args;
      calls.push({ method, status, authorized: extra.authorized ?? false, at: Date.now(), args: shown, ...extra });
    };
    const fail = (word: string, extra: Record<string, unknown> = {}, authorized = false): Answer => {
      record(200, { error: word, authorized });
      return { status: 200, body: JSON.stringify({ ok: false, error: word, ...extra }) };
    };
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (req.method === 'POST' && body.length > 0) {
      if (type === '') return fail('missing_post_type');
      if (type === 'application/x-www-form-urlencoded') Object.assign(args, Object.fromEntries(new URLSearchParams(body.toString('utf8'))));
      else if (type === 'application/json') {
        let json: unknown;
        try {
          json = JSON.parse(body.toString('utf8'));
        } catch {
          return fail('invalid_json');
        }
        if (TAKES_JSON.has(method) && json !== null && typeof json === 'object') Object.assign(args, json);
      } else if (type !== 'multipart/form-data' && type !== 'text/plain') return fail('invalid_post_type');
    }
    const handler = METHODS[method];
    if (handler === undefined) return fail('unknown_method');
    const header = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const token = header ?? (type === 'application/json' ? undefined : typeof args.token === 'string' ? args.token : undefined);
    if (token === undefined) return fail('not_authed');
    if (ws.revoked.has(token)) return fail('token_revoked');
    const caller: WsUser | undefined = ws.users.get(ws.tokens.get(token) ?? '');
    if (caller === undefined) return fail('invalid_auth');
    const failure = failures.find((f) => f.times > 0 && f.method === method && f.delayMs === undefined);
    if (failure) {
      failure.times -= 1;
      if (failure.error) return fail(failure.error, {}, true);
      const retry: Record<string, string> = failure.retryAfter === undefined ? {} : { 'retry-after': String(failure.retryAfter) };
      record(failure.status ?? 500, { authorized: true, ...(failure.retryAfter === undefined ? {} : { retryAfter: failure.retryAfter }) });
      const said = failure.status === 429 ? { ok: false, error: 'ratelimited' } : { ok: false, error: 'internal_error' };
      return { status: failure.status ?? 500, headers: retry, body: JSON.stringify(said) };
    }
    try {
      tiers.take(method, typeof args.channel === 'string' ? args.channel : undefined);
    } catch (err) {
      if (!(err instanceof RateLimited)) throw err;
      record(429, { error: 'ratelimited', retryAfter: err.retryAfterSeconds, authorized: true });
      return { status: 429, headers: { 'retry-after': String(err.retryAfterSeconds) }, body: JSON.stringify({ ok: false, error: 'ratelimited' }) };
    }
    try {
      const answer = handler({ method, args, caller }, api!);
      record(200, { authorized: true });
      return { status: 200, body: JSON.stringify({ ok: true, ...answer }) };
    } catch (err) {
      if (!(err instanceof SlackApiError)) throw err;
      return fail(err.word, err.extra, true);
    }
  };

  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const url = new URL(req.url ?? '/', 'http://slack');
      let answer: Answer;
      const method = /^\/api\/([A-Za-z.]+)$/.exec(url.pathname)?.[1];
      const upload = /^\/upload\/v1\/([A-Z0-9]+)$/.exec(url.pathname)?.[1];
      if (method !== undefined) {
        const slow = failures.find((f) => f.times > 0 && f.method === method && f.delayMs !== undefined);
        if (slow) {
          slow.times -= 1;
          await sleep(slow.delayMs!);
        }
        const called = callMethod(method, req, url, body);
        answer = { ...called, headers: { 'content-type': 'application/json; charset=utf-8', ...called.headers } };
      } else if (upload !== undefined && req.method === 'POST') {
        const got = receiveUpload(ws, upload, req.headers, body);
        answer = { status: got.status, headers: { 'content-type': 'text/plain' }, body: got.text };
      } else if (url.pathname.startsWith('/files-pri/') && req.method === 'GET') {
        const failure = failures.find((f) => f.times > 0 && f.method === 'file download');
        if (failure) failure.times -= 1;
        answer = failure ? { status: failure.status ?? 503, body: 'As the test ordered' } : privateFile(ws, root, url.pathname, req.headers.authorization);
        calls.push({ method: 'file download', status: answer.status, authorized: req.headers.authorization !== undefined, at: Date.now(), args: { path: url.pathname } });
      } else if (url.pathname === '/' && req.method === 'GET') answer = { status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, body: SIGN_IN_PAGE };
      else answer = { status: 404, headers: { 'content-type': 'text/plain' }, body: 'not found' };
      res.writeHead(answer.status, { date: new Date().toUTCString(), ...answer.headers }).end(answer.body);
    })().catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: false, error: 'fatal_error', detail: String(err) }));
      else res.destroy();
    });
  });
  // Its connections never hold the test process (the contract suite counts what a connector leaves open).
  server.on('connection', (socket) => socket.unref());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  root = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  api = context(root);
  return {
    root,
    calls,
    failures,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
