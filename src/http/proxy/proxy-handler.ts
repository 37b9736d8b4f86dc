/**
 * The proxy: every documented platform path served at the same path on the
 * gateway. A path that could mean another resource to a server on the way
 * (dot segments, encoded slashes: path-check.ts) is refused first; the path
 * checked is the path sent. A caller is admitted by its gateway key (or, in
 * `forward_caller_authorization` mode, brings its own platform token), a
 * documented JSON body is checked against its schema before anything leaves
 * (400 naming the field), and the request is forwarded to the upstream that
 * serves it with the platform token. Bodies stream through unread otherwise.
 *
 * It works on Node's own request and response: the gateway's HTTP server
 * hands it proxied calls before Fastify sees them (raw-server.ts), and its
 * Fastify routes hand it the rest (inject, HEAD). Every refusal is answered
 * here, in the JSON shape of the gateway's other errors (errors.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { Logger } from 'pino';
import { Pool } from '../../platform/undici.ts';
import type { Upstream } from '../../platform/endpoints/types.ts';
import { RouteNotFoundError, toErrorBody } from '../errors.ts';
import type { ProxyCallers } from './callers.ts';
import { ProxyDeniedError } from './denied.ts';
import { CallerGoneError, forward, forwardTo, UpstreamAnswerInvalidError, type ForwardInput, type Forwarded } from './forward.ts';
import { checkProxyPath } from './path-check.ts';
import { splitPath } from './path-patterns.ts';
import type { PostOnce } from './post-once.ts';
import { checkedBody, checkQuery, hasBody, isJson } from './request-checks.ts';
import type { ProxyRouteTable } from './route-table.ts';

export interface ProxyDeps {
  table: ProxyRouteTable;
  callers: ProxyCallers;
  upstreams: Record<Upstream, string>;
  platformAuthorization: string;
  forwardCallerAuthorization: boolean;
  passthroughUnknown: boolean;
  timeoutMs: number;
  bodyLimit: number;
  logger: Logger;
  /** Unified-messaging posts answered from the store when all their message_ids were posted before. */
  posts?: PostOnce;
  /** Told about every proxied call (metrics). */
  onCall?: (call: { client: string; method: string; template: string; status: number; seconds: number }) => void;
}

/** Where a proxied call goes: the upstream's origin, its base path (no trailing slash) and the pool of its origin. */
interface Target {
  origin: string;
  basePath: string;
  pool: Pool;
}

/**
 * The pool of each upstream origin, chosen by measurement (docs/decisions/proxy-hot-path.md): up to 64
 * keep-alive connections (a proxied call waits for a free one beyond that), one request at a time on each —
 * pipelining gained nothing measurable and would queue a quick call behind a long download on its connection.
 */
const UPSTREAM_POOL = { connections: 64, pipelining: 1, keepAliveTimeout: 10_000 } as const;

/** One call on its way: what the answer is logged, counted and written with. */
interface Call {
  req: IncomingMessage;
  res: ServerResponse;
  started: number;
  client: string;
  template: string;
  input: ForwardInput;
}

/** The methods the documents use; a HEAD or OPTIONS goes through Fastify (its HEAD twin of a GET route). */
const PROXIED_METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);

/** Whether a request target is under the path prefixes the documents use (`/api/…`, `/authorize`, `/callback`, `/token`). */
export function isProxiedPath(url: string): boolean {
  if (url.startsWith('/api/')) return true;
  const end = url.indexOf('?');
  const path = end === -1 ? url : url.slice(0, end);
  return path === '/authorize' || path === '/callback' || path === '/token';
}

export class ProxyHandler {
  readonly #deps: ProxyDeps;
  readonly #targets = {} as Record<Upstream, Target>;
  readonly #pools = new Map<string, Pool>();
  #closing = false;

  constructor(deps: ProxyDeps) {
    this.#deps = deps;
    // One keep-alive pool per upstream origin, apart from undici's global agent (which the gateway's own calls and
    // connectors share), closed with the app.
    for (const [name, url] of Object.entries(deps.upstreams) as [Upstream, string][]) {
      const { origin, pathname } = new URL(url);
      const pool = this.#pools.get(origin) ?? new Pool(origin, UPSTREAM_POOL);
      this.#pools.set(origin, pool);
      this.#targets[name] = { origin, basePath: pathname.replace(/\/+$/, ''), pool };
    }
  }

  /** Whether the gateway's server hands this request to the proxy before Fastify. */
  claims(req: IncomingMessage): boolean {
    return PROXIED_METHODS.has(req.method as string) && isProxiedPath(req.url as string);
  }

  /** From now on, calls are answered 503 with `Connection: close` (the gateway is stopping). */
  beginClosing(): void {
    this.#closing = true;
  }

  async close(): Promise<void> {
    await Promise.all([...this.#pools.values()].map((p) => p.close()));
  }

  /** Serves one call; never throws (a refusal or a failure is answered, or the connection ended when too late). */
  serve(req: IncomingMessage, res: ServerResponse): void {
    const started = performance.now();
    if (this.#closing) return closingAnswer(res);
    try {
      this.#handle(req, res, started);
    } catch (err) {
      this.#fail(req, res, err);
    }
  }

  /** The checks, synchronous up to a documented JSON body (read, then checked); then the call goes out. */
  #handle(req: IncomingMessage, res: ServerResponse, started: number): void {
    const deps = this.#deps;
    // The raw request target, split at its first `?`: what is checked here is what is sent.
    const url = req.url as string;
    const split = url.indexOf('?');
    const path = split === -1 ? url : url.slice(0, split);
    const query = split === -1 ? '' : url.slice(split + 1);
    checkProxyPath(path);
    const segments = splitPath(path);
    const method = req.method as string;
    const hit = deps.table.lookupSegments(method, segments);
    if (hit === 'method') throw new ProxyDeniedError(405, 'TG_METHOD_NOT_ALLOWED', `${method} is not documented for ${path}`);
    if (hit === undefined && !deps.passthroughUnknown) throw new RouteNotFoundError(`${method} ${path} is not a documented platform endpoint`);
    const endpoint = hit?.endpoint;
    const headers = req.headers;

    let client = 'caller';
    let authorization: string | undefined;
    if (deps.forwardCallerAuthorization) {
      authorization = headers.authorization;
    } else {
      const admitted = deps.callers.admit(headers.authorization, method, path, segments, req.socket);
      if (!admitted.ok) {
        if (admitted.retryAfterSeconds !== undefined) res.setHeader('retry-after', String(admitted.retryAfterSeconds));
        throw new ProxyDeniedError(admitted.status, admitted.code, admitted.message);
      }
      client = admitted.caller.name;
      authorization = deps.platformAuthorization;
    }

    if (endpoint?.query) checkQuery(query, endpoint);
    const target = this.#targets[endpoint?.upstream ?? upstreamOf(path)];
    const call: Call = {
      req,
      res,
      started,
      client,
      template: endpoint?.path ?? '(undocumented)',
      input: {
        origin: target.origin,
        path: query === '' ? `${target.basePath}${path}` : `${target.basePath}${path}?${query}`,
        dispatcher: target.pool,
        method,
        headers,
        body: undefined,
        authorization,
        seen: { peer: req.socket.remoteAddress ?? '', proto: (req.socket as TLSSocket).encrypted ? 'https' : 'http', host: headers.host ?? '' },
        timeoutMs: deps.timeoutMs,
      },
    };
    if (!endpoint?.body || !isJson(headers)) {
      if (hasBody(headers)) call.input.body = req;
      return this.#send(call);
    }
    // Whatever fails from here on — the read, the check, the hand-over — is answered like a refusal above.
    checkedBody(req, endpoint, deps.bodyLimit)
      .then((checked) => {
        call.input.body = checked.raw;
        const once = deps.posts && hit !== undefined ? deps.posts.applies(endpoint, hit.params, checked.json) : undefined;
        // A post answered once is seen through even when its caller leaves (the answer is stored for the retry).
        if (once === undefined) return this.#send(call);
        return deps.posts!.run(once, () => forward(call.input)).then(
          (answer) => this.#answer(call, answer),
          (err: unknown) => this.#failed(call, err),
        );
      })
      .catch((err: unknown) => this.#fail(req, res, err));
  }

  /** The call goes out; its answer is passed on as it arrives, and the platform request given up if the caller leaves. */
  #send(call: Call): void {
    call.input.caller = call.res;
    forwardTo(call.input, { answered: (answer) => this.#answer(call, answer), failed: (err) => this.#failed(call, err) });
  }

  /** The platform answered: the call is logged and counted, its head written, its body passed on as it comes. */
  #answer(call: Call, answer: Forwarded): void {
    const { res, input } = call;
    const seconds = (performance.now() - call.started) / 1000;
    logCall(this.#deps.logger, call.client, input.method, call.template, answer.status, seconds);
    this.#deps.onCall?.({ client: call.client, method: input.method, template: call.template, status: answer.status, seconds });
    try {
      res.writeHead(answer.status, answer.headers);
    } catch (err) {
      answer.body.discard(err as Error);
      const invalid = new UpstreamAnswerInvalidError(`the platform's answer to ${input.method} could not be passed on: ${(err as Error).message}`, { cause: err });
      return this.#fail(call.req, res, invalid);
    }
    answer.body.sendTo(res);
  }

  #failed(call: Call, err: unknown): void {
    if (err instanceof CallerGoneError) return; // nobody to answer
    this.#fail(call.req, call.res, err);
  }

  /** A refusal or failure: its JSON answer (4xx logged at info, 5xx at error), or the connection ended if the head went. */
  #fail(req: IncomingMessage, res: ServerResponse, err: unknown): void {
    const { status, body } = toErrorBody(err);
    const where = { method: req.method, url: req.url };
    if (status >= 500) this.#deps.logger.error({ err, ...where }, 'request failed');
    else this.#deps.logger.info({ code: body.code, status, ...where }, body.message);
    if (res.headersSent || res.destroyed) {
      res.destroy();
      return;
    }
    const json = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(json) });
    res.end(json);
  }
}

function closingAnswer(res: ServerResponse): void {
  const json = JSON.stringify({ code: 'TG_CLOSING', message: 'the gateway is shutting down' });
  res.writeHead(503, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(json), connection: 'close' });
  res.end(json);
}

/** A call the platform answered: at debug (nothing to write at info when all went well), at warn for its 5xx. */
function logCall(logger: Logger, client: string, method: string, template: string, status: number, seconds: number): void {
  if (status >= 500) logger.warn({ client, method, template, status, duration_ms: Math.round(seconds * 1000) }, 'proxied');
  else if (logger.isLevelEnabled('debug')) logger.debug({ client, method, template, status, duration_ms: Math.round(seconds * 1000) }, 'proxied');
}

/** For undocumented paths (passthrough): the upstream the document's prefixes point at. */
function upstreamOf(path: string): Upstream {
  if (path === '/authorize' || path === '/callback' || path === '/token') return 'auth';
  if (/^\/api\/(orgs|v2|interactions|v1\/collections|templates)(\/|$)/.test(path)) return 'builder';
  return 'api';
}
