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
import type { Readable } from 'node:stream';
import type { Logger } from 'pino';
import { Pool } from 'undici';
import { ThreadgateError } from '../../errors.ts';
import type { EndpointSpec, Upstream } from '../../platform/endpoints/types.ts';
import { zodIssues } from '../../platform/errors.ts';
import { RequestInvalidError, RouteNotFoundError } from '../errors.ts';
import type { ProxyCallers } from './callers.ts';
import { forward } from './forward.ts';
import { checkProxyPath } from './path-check.ts';
import type { PostOnce } from './post-once.ts';
import type { ProxyRouteTable } from './route-table.ts';

export class ProxyDeniedError extends ThreadgateError {
  readonly code: string;
  override readonly statusCode: number;

  constructor(status: number, code: string, message: string) {
    super(message);
    this.statusCode = status;
    this.code = code;
  }
}

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

/** Connections kept to each upstream; a proxied call waits for a free one beyond that. */
const UPSTREAM_CONNECTIONS = 64;

/** The path prefixes the documents use; the proxy answers under these only. */
const PROXY_PREFIXES = ['/api/*', '/authorize', '/callback', '/token'] as const;

export function registerProxyRoutes(app: FastifyInstance, deps: ProxyDeps): void {
  // One keep-alive pool per upstream origin, apart from undici's global agent (which the gateway's own calls and
  // connectors share), made once here and closed with the app.
  const pools = new Map<string, Pool>();
  const targets = {} as Record<Upstream, Target>;
  for (const [name, url] of Object.entries(deps.upstreams) as [Upstream, string][]) {
    const { origin, pathname } = new URL(url);
    const pool = pools.get(origin) ?? new Pool(origin, { connections: UPSTREAM_CONNECTIONS, keepAliveTimeout: 10_000 });
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
): Promise<unknown> {
  const started = performance.now();
  // The raw request target, split at its first `?`: what is checked here is what is sent.
  const split = request.url.indexOf('?');
  const path = split === -1 ? request.url : request.url.slice(0, split);
  const query = split === -1 ? '' : request.url.slice(split + 1);
  checkProxyPath(path);
  const hit = deps.table.lookup(request.method, path);
  if (hit === 'method') throw new ProxyDeniedError(405, 'TG_METHOD_NOT_ALLOWED', `${request.method} is not documented for ${path}`);
  if (hit === undefined && !deps.passthroughUnknown) throw new RouteNotFoundError(`${request.method} ${path} is not a documented platform endpoint`);
  const endpoint = hit?.endpoint;

  let client = 'caller';
  let authorization: string | undefined;
  if (deps.forwardCallerAuthorization) {
    authorization = request.headers.authorization;
  } else {
    const admitted = deps.callers.admit(request.headers.authorization, request.method, path);
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
  const send = () =>
    forward({
      origin: target.origin,
      path: `${target.basePath}${path}${query ? `?${query}` : ''}`,
      dispatcher: target.pool,
      method: request.method,
      headers: request.headers,
      body,
      authorization,
      seen: { peer: request.ip, proto: request.protocol, host: request.host },
      timeoutMs: deps.timeoutMs,
    });
  const once = deps.posts && endpoint && hit !== undefined && checked ? deps.posts.applies(endpoint, hit.params, checked.json) : undefined;
  const answer = once ? await deps.posts!.run(once, send) : await send();
  const seconds = (performance.now() - started) / 1000;
  const template = endpoint?.path ?? '(undocumented)';
  deps.logger.info({ client, method: request.method, template, status: answer.status, duration_ms: Math.round(seconds * 1000) }, 'proxied');
  deps.onCall?.({ client, method: request.method, template, status: answer.status, seconds });
  return reply.status(answer.status).headers(answer.headers).send(answer.body);
}

function isJson(request: FastifyRequest): boolean {
  return /^application\/(.+\+)?json\b/i.test(request.headers['content-type'] ?? '');
}

function hasBody(request: FastifyRequest): boolean {
  return request.headers['content-length'] !== undefined ? request.headers['content-length'] !== '0' : request.headers['transfer-encoding'] !== undefined;
}

async function checkedBody(stream: Readable | undefined, endpoint: EndpointSpec, limit: number): Promise<{ raw: Buffer; json: unknown }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream ?? []) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new ProxyDeniedError(413, 'TG_BODY_TOO_LARGE', `the body is over ${limit} bytes`);
    chunks.push(chunk as Buffer);
  }
  const raw = Buffer.concat(chunks);
  let json: unknown;
  try {
    json = JSON.parse(raw.toString('utf8'));
  } catch (err) {
    throw new RequestInvalidError([{ path: '', message: `malformed JSON: ${(err as Error).message}` }]);
  }
  const parsed = endpoint.body!.safeParse(json);
  if (!parsed.success) throw new RequestInvalidError(zodIssues(parsed.error));
  return { raw, json: parsed.data }; // the caller's bytes go on unchanged
}

/** A documented query is checked as strings (a repeated key as a list); it is forwarded as given. */
function checkQuery(query: string, endpoint: EndpointSpec): void {
  const values: Record<string, string | string[]> = {};
  for (const [key, value] of new URLSearchParams(query)) {
    const prior = values[key];
    values[key] = prior === undefined ? value : Array.isArray(prior) ? [...prior, value] : [prior, value];
  }
  const parsed = endpoint.query!.safeParse(values);
  if (!parsed.success) throw new RequestInvalidError(zodIssues(parsed.error, 'query'));
}

/** For undocumented paths (passthrough): the upstream the document's prefixes point at. */
function upstreamOf(path: string): Upstream {
  if (path === '/authorize' || path === '/callback' || path === '/token') return 'auth';
  if (/^\/api\/(orgs|v2|interactions|v1\/collections|templates)(\/|$)/.test(path)) return 'builder';
  return 'api';
}
