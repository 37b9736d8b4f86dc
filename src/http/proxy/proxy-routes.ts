/**
 * The proxy: every documented platform path served at the same path on the
 * gateway. A path that could mean another resource to a server on the way
 * (dot segments, encoded slashes: path-check.ts) is refused first; the path
 * checked is the path sent. A caller is admitted by its gateway key (or, in
 * `forward_caller_authorization` mode, brings its own platform token), a
 * documented JSON body is checked against its schema before anything leaves
 * (400 naming the field), and the request is forwarded to the upstream that
 * serves it with the platform token. Bodies stream through unread otherwise.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { Logger } from 'pino';
import { Pool } from 'undici';
import type { Upstream } from '../../platform/endpoints/types.ts';
import { RouteNotFoundError } from '../errors.ts';
import type { ProxyCallers } from './callers.ts';
import { ProxyDeniedError } from './denied.ts';
import { CallerGoneError, forward, UpstreamAnswerInvalidError, type Forwarded } from './forward.ts';
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
 * The pool of each upstream origin, chosen by measurement (docs/decisions.md, "The proxy's hot path"): up to 64
 * keep-alive connections (a proxied call waits for a free one beyond that), one request at a time on each —
 * pipelining gained nothing measurable and would queue a quick call behind a long download on its connection.
 */
const UPSTREAM_POOL = { connections: 64, pipelining: 1, keepAliveTimeout: 10_000 } as const;

/** The path prefixes the documents use; the proxy answers under these only. */
const PROXY_PREFIXES = ['/api/*', '/authorize', '/callback', '/token'] as const;

export function registerProxyRoutes(app: FastifyInstance, deps: ProxyDeps): void {
  // One keep-alive pool per upstream origin, apart from undici's global agent (which the gateway's own calls and
  // connectors share), made once here and closed with the app.
  const pools = new Map<string, Pool>();
  const targets = {} as Record<Upstream, Target>;
  for (const [name, url] of Object.entries(deps.upstreams) as [Upstream, string][]) {
    const { origin, pathname } = new URL(url);
    const pool = pools.get(origin) ?? new Pool(origin, UPSTREAM_POOL);
    pools.set(origin, pool);
    targets[name] = { origin, basePath: pathname.replace(/\/+$/, ''), pool };
  }
  app.addHook('onClose', async () => {
    await Promise.all([...pools.values()].map((p) => p.close()));
  });
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    // Bodies stay unread streams here; a checked JSON body is read by the handler within the limit.
    scope.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    for (const url of PROXY_PREFIXES) {
      scope.route({ method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'], url, handler: (request, reply) => handle(request, reply, deps, targets) });
    }
  });
}

async function handle(
  request: FastifyRequest,
  reply: import('fastify').FastifyReply,
  deps: ProxyDeps,
  targets: Record<Upstream, Target>,
): Promise<void> {
  const started = performance.now();
  // The raw request target, split at its first `?`: what is checked here is what is sent.
  const url = request.url;
  const split = url.indexOf('?');
  const path = split === -1 ? url : url.slice(0, split);
  const query = split === -1 ? '' : url.slice(split + 1);
  checkProxyPath(path);
  const segments = splitPath(path);
  const method = request.method;
  const hit = deps.table.lookupSegments(method, segments);
  if (hit === 'method') throw new ProxyDeniedError(405, 'TG_METHOD_NOT_ALLOWED', `${method} is not documented for ${path}`);
  if (hit === undefined && !deps.passthroughUnknown) throw new RouteNotFoundError(`${method} ${path} is not a documented platform endpoint`);
  const endpoint = hit?.endpoint;

  let client = 'caller';
  let authorization: string | undefined;
  if (deps.forwardCallerAuthorization) {
    authorization = request.headers.authorization;
  } else {
    const admitted = deps.callers.admit(request.headers.authorization, method, path, segments);
    if (!admitted.ok) {
      if (admitted.retryAfterSeconds !== undefined) void reply.header('retry-after', String(admitted.retryAfterSeconds));
      throw new ProxyDeniedError(admitted.status, admitted.code, admitted.message);
    }
    client = admitted.caller.name;
    authorization = deps.platformAuthorization;
  }

  if (endpoint?.query) checkQuery(query, endpoint);
  const stream = request.body as Readable | undefined;
  const checked = endpoint?.body && isJson(request) ? await checkedBody(stream, endpoint, deps.bodyLimit) : undefined;
  const body = checked ? checked.raw : hasBody(request) ? stream : undefined;
  const target = targets[endpoint?.upstream ?? upstreamOf(path)];
  const send = (caller?: ServerResponse) =>
    forward({
      origin: target.origin,
      path: query === '' ? `${target.basePath}${path}` : `${target.basePath}${path}?${query}`,
      dispatcher: target.pool,
      method,
      headers: request.headers,
      body,
      authorization,
      seen: { peer: request.ip, proto: request.protocol, host: request.host },
      timeoutMs: deps.timeoutMs,
      ...(caller ? { caller } : {}),
    });
  const once = deps.posts && endpoint && hit !== undefined && checked ? deps.posts.applies(endpoint, hit.params, checked.json) : undefined;
  let answer: Forwarded;
  try {
    // A post answered once is seen through even when its caller leaves (the answer is stored for the retry).
    answer = once ? await deps.posts!.run(once, () => send()) : await send(reply.raw);
  } catch (err) {
    if (!(err instanceof CallerGoneError)) throw err;
    reply.hijack(); // nobody to answer
    return;
  }
  const seconds = (performance.now() - started) / 1000;
  const template = endpoint?.path ?? '(undocumented)';
  logCall(deps.logger, client, method, template, answer.status, seconds);
  deps.onCall?.({ client, method, template, status: answer.status, seconds });
  // The answer goes out on the raw response: head, then the body as it arrives. Fastify still sees it finish
  // (its request log and onResponse hooks run).
  try {
    reply.raw.writeHead(answer.status, answer.headers);
  } catch (err) {
    answer.body.discard(err as Error);
    throw new UpstreamAnswerInvalidError(`the platform's answer to ${method} could not be passed on: ${(err as Error).message}`, { cause: err });
  }
  reply.hijack();
  answer.body.sendTo(reply.raw);
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
