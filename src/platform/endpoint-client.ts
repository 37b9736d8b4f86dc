/**
 * The typed client's machinery (client.ts): functions generated at run time
 * from a list of endpoints — path filled, query and body checked with their
 * strict schemas, answers parsed with the lenient ones — over the
 * PlatformHttpClient's transport, retries and timeouts. Apart from the
 * endpoint lists, so a client of a few endpoints (the bridge's unified
 * messaging client) does not load every endpoint's schemas
 * (docs/decisions/footprint.md).
 */
import type { Logger } from 'pino';
import type { z } from 'zod';
import type { CallExtras, LooseQuery, PlatformRedirect } from './client-types.ts';
import { PlatformDownload } from './download.ts';
import type { EndpointSpec, Upstream } from './endpoints/types.ts';
import { PlatformClientOptionsError, PlatformRequestInvalidError, PlatformResponseError, zodIssues, type FieldIssue } from './errors.ts';
import { queryString } from './http-outcomes.ts';
import { PlatformHttpClient } from './http-client.ts';
import type { PlatformAttemptInfo, PlatformRequest, TokenType } from './http-request.ts';
import type { RetryPolicy } from './retry.ts';

export type PlatformClientOptions = PlatformConnectOptions | PlatformTransportOptions;

/** The client opens its own connection pools (closed by `close()`). */
export interface PlatformConnectOptions {
  /** `platform.url`: /api/v5, /api/pub, /api/reporting, /api/objectives. */
  url: string;
  /** `platform.builder_url` (forms, interactions, collections); defaults to `url`. */
  builderUrl?: string;
  /** `platform.auth_url` (sign-in); defaults to `url`. */
  authUrl?: string;
  token: string;
  tokenType?: TokenType;
  /** Fills `<organization_id>` when a call does not name one. */
  organizationId?: string;
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  logger?: Logger;
  onAttempt?: (attempt: PlatformAttemptInfo) => void;
}

/** The client calls through transports its owner made (and closes). */
export interface PlatformTransportOptions {
  /** For `api` endpoints, and for builder and sign-in ones unless their own transports are given. */
  http: PlatformHttpClient;
  builderHttp?: PlatformHttpClient;
  authHttp?: PlatformHttpClient;
  organizationId?: string;
}

/** What `createEndpointClient` returns before the endpoint list's types narrow it (client.ts's PlatformClient does). */
export interface EndpointClient {
  readonly organizationId: string | undefined;
  paginate(id: string, args?: object): AsyncGenerator<unknown, void, undefined>;
  close(): Promise<void>;
}

/** What a generated function receives, before the types of its endpoint narrow it. */
interface AnyArgs extends CallExtras {
  params?: Record<string, unknown>;
  query?: unknown;
  body?: unknown;
}

/**
 * A client of `endpoints` (one function per endpoint id, `paginate`, `close`); `createPlatformClient` makes it of
 * every documented endpoint, the bridge's unified messaging client of the few it calls.
 */
export function createEndpointClient(endpoints: readonly EndpointSpec[], options: PlatformClientOptions): EndpointClient {
  const transports = new Map<string, PlatformHttpClient>();
  const transportFor = (o: PlatformConnectOptions, baseUrl: string) => {
    let http = transports.get(baseUrl);
    if (http === undefined) {
      const { token, tokenType, timeoutMs, retry, logger, onAttempt } = o;
      http = new PlatformHttpClient({ baseUrl, token, tokenType, timeoutMs, retry, logger, onAttempt });
      transports.set(baseUrl, http);
    }
    return http;
  };
  const upstreams: Record<Upstream, PlatformHttpClient> =
    'http' in options
      ? { api: options.http, builder: options.builderHttp ?? options.http, auth: options.authHttp ?? options.http }
      : {
          api: transportFor(options, options.url),
          builder: transportFor(options, options.builderUrl ?? options.url),
          auth: transportFor(options, options.authUrl ?? options.url),
        };
  const organizationId = options.organizationId;

  async function call(endpoint: EndpointSpec, args: AnyArgs = {}): Promise<unknown> {
    const http = upstreams[endpoint.upstream];
    // Sign-in endpoints authenticate the app (ID and secret), not the API caller: the platform token stays home.
    const request = { ...buildRequest(endpoint, args, organizationId), anonymous: endpoint.upstream === 'auth' };
    if (endpoint.download) {
      const res = await http.requestStream(request);
      return new PlatformDownload(res.status, res.headers, res.body);
    }
    if (endpoint.redirects) {
      const res = await http.request({ ...request, redirects: true });
      const location = res.headers.location;
      return { status: res.status, location: typeof location === 'string' ? location : undefined, body: res.body } satisfies PlatformRedirect;
    }
    if (endpoint.response) return http.requestJson(request, endpoint.response);
    return (await http.request(request)).body;
  }

  const functions = Object.fromEntries(
    endpoints.map((endpoint) => [endpoint.id, (args?: AnyArgs) => call(endpoint, args)] as const),
  );
  const byId = new Map(endpoints.map((e) => [e.id, e]));

  async function* paginate(id: string, args: AnyArgs = {}): AsyncGenerator<unknown, void, undefined> {
    const endpoint = byId.get(id);
    if (endpoint?.response === undefined || endpoint.download) throw new PlatformClientOptionsError(`${id} is not a paginated endpoint`);
    const http = upstreams[endpoint.upstream];
    const first = buildRequest(endpoint, args, organizationId);
    let current = first.path + queryString(first.query);
    let page: unknown = await http.requestJson(first, endpoint.response);
    const seen = new Set([current]);
    for (;;) {
      // A listing answered with a bare array is one last page.
      if (Array.isArray(page)) return yield* page;
      const { results, next } = (page ?? {}) as { results?: unknown; next?: unknown };
      if (!Array.isArray(results)) throw new PlatformClientOptionsError(`${id} is not a paginated endpoint (no results in its answer)`);
      yield* results;
      if (typeof next !== 'string' || next === '') return;
      // Relative links are read against the page they came from; only path and query are kept.
      const path = http.pathOfLink(new URL(next, http.baseUrl + current).href);
      // A `next` that points back to a page already read would loop forever.
      if (seen.has(path)) {
        throw new PlatformResponseError({ method: endpoint.method, path, attempts: 1 }, 200, [
          { path: 'next', message: 'links to a page already read' },
        ], undefined);
      }
      seen.add(path);
      current = path;
      page = await http.requestJson({ ...callOptions(args), method: endpoint.method, path }, endpoint.response);
    }
  }

  return Object.freeze({
    ...functions,
    organizationId,
    paginate,
    close: async () => {
      await Promise.all([...transports.values()].map((t) => t.close()));
    },
  }) as unknown as EndpointClient;
}

/** Method, filled path, checked query and body: everything but the transport. */
function buildRequest(endpoint: EndpointSpec, args: AnyArgs, organizationId: string | undefined): PlatformRequest {
  const issues: FieldIssue[] = [];
  const path = fillPath(endpoint.path, args.params ?? {}, organizationId, issues);
  const query = checkQuery(endpoint, args.query, issues);
  const body = checkBody(endpoint, args.body, issues);
  if (issues.length > 0) {
    const named = issues.some((i) => i.path.startsWith('params.')) ? endpoint.path : path;
    throw new PlatformRequestInvalidError(endpoint.method, named, issues);
  }
  const options = callOptions(args);
  const headers = { ...options.headers, ...body.headers };
  return { ...options, ...body, method: endpoint.method, path, query, ...(Object.keys(headers).length > 0 ? { headers } : {}) };
}

function fillPath(template: string, params: Record<string, unknown>, organizationId: string | undefined, issues: FieldIssue[]): string {
  return template.replace(/<([a-z_]+)>/g, (_, name: string) => {
    const value = params[name] ?? (name === 'organization_id' ? organizationId : undefined);
    const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : value;
    if (!isPathSegment(text)) {
      issues.push({ path: `params.${name}`, message: 'must be a non-empty id' });
      return '_';
    }
    return encodeURIComponent(text);
  });
}

function checkQuery(endpoint: EndpointSpec, query: unknown, issues: FieldIssue[]): PlatformRequest['query'] {
  let value = query;
  if (endpoint.query) value = parsed(endpoint.query, query ?? {}, 'query', issues);
  if (value === undefined || value === null) return undefined;
  const out: NonNullable<PlatformRequest['query']> = {};
  for (const [key, v] of Object.entries(value as LooseQuery)) {
    if (v === undefined) continue;
    out[key] = Array.isArray(v) ? v.map(String) : typeof v === 'object' ? JSON.stringify(v) : String(v);
  }
  return out;
}

function checkBody(endpoint: EndpointSpec, body: unknown, issues: FieldIssue[]): Pick<PlatformRequest, 'body' | 'rawBody' | 'headers'> {
  if (endpoint.multipart) {
    if (body instanceof FormData) return { rawBody: body };
    issues.push({ path: 'body', message: 'must be a FormData (a multipart upload)' });
    return {};
  }
  if (endpoint.body) return { body: parsed(endpoint.body, body, 'body', issues) };
  if (body instanceof URLSearchParams) {
    return { rawBody: body.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } };
  }
  return body === undefined ? {} : { body };
}

function parsed(schema: z.ZodType, input: unknown, where: string, issues: FieldIssue[]): unknown {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  issues.push(...zodIssues(result.error, where));
  return undefined;
}

/** A path segment that names this resource: not empty, `.` or `..` (which would name another). */
export function isPathSegment(value: unknown): value is string {
  return typeof value === 'string' && value !== '' && value !== '.' && value !== '..';
}

/** Only the call options (and extra headers), never a stray key of a wider object. */
export function callOptions(args: CallExtras | undefined): Pick<PlatformRequest, 'timeoutMs' | 'retry' | 'signal' | 'headers' | 'idempotent'> {
  if (args === undefined) return {};
  const { timeoutMs, retry, signal, headers, idempotent } = args;
  return {
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    ...(retry === undefined ? {} : { retry }),
    ...(idempotent === undefined ? {} : { idempotent }),
    ...(signal === undefined ? {} : { signal }),
    ...(headers === undefined ? {} : { headers }),
  };
}
