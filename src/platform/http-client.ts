/**
 * The transport to the platform's API: one undici Pool per base URL
 * (keep-alive), the Authorization header, JSON in and out, a timeout per
 * attempt covering status line, headers and body, no redirects followed, and
 * retry composed around each attempt (`retry.ts`).
 *
 * Every non-2xx answer, timeout and network failure becomes one of the
 * platform errors in `errors.ts`. Logs carry method, path, status, duration
 * and attempt; never the Authorization header or a body.
 */
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import { Pool, type Dispatcher } from './undici.ts';
import type { z } from 'zod';
import {
  PlatformClientOptionsError,
  PlatformHttpError,
  PlatformResponseError,
  PlatformTimeoutError,
  zodIssues,
  type PlatformCall,
} from './errors.ts';
import { callerHeaders, classify, classifyUnsafe, codeOf, httpError, mapTransportError, parseBody, queryString } from './http-outcomes.ts';
import {
  CredentialsSchema,
  HttpOptionsSchema,
  type CallOptions,
  type HttpMethod,
  type PlatformAttemptInfo,
  type PlatformHttpOptions,
  type PlatformRequest,
  type PlatformResponse,
  type PlatformStreamResponse,
  type TokenType,
} from './http-request.ts';
import { DEFAULT_RETRY_POLICY, withRetry, type RetryPolicy } from './retry.ts';

const USER_AGENT = 'threadgate';

type Outgoing = string | Uint8Array | undefined;
interface OutgoingRequest {
  method: HttpMethod;
  path: string;
  body: Outgoing;
  headers: Record<string, string>;
  /** Hand a 2xx body over unread. */
  stream: boolean;
  redirects: boolean;
}

export class PlatformHttpClient {
  readonly #origin: string;
  readonly #basePath: string;
  #authorization: string;
  readonly #timeoutMs: number;
  readonly #retry: Readonly<RetryPolicy>;
  readonly #logger: Logger | undefined;
  readonly #onAttempt: ((attempt: PlatformAttemptInfo) => void) | undefined;
  readonly #dispatcher: Dispatcher;
  readonly #ownsDispatcher: boolean;

  constructor(options: PlatformHttpOptions) {
    const parsed = HttpOptionsSchema.safeParse(options);
    if (!parsed.success) {
      const problems = zodIssues(parsed.error).map((i) => `${i.path}: ${i.message}`);
      throw new PlatformClientOptionsError(`platform client options invalid: ${problems.join('; ')}`);
    }
    const o = parsed.data;
    const url = new URL(o.baseUrl);
    this.#origin = url.origin;
    this.#basePath = url.pathname.replace(/\/+$/, '');
    this.#authorization = `${o.tokenType} ${o.token}`;
    this.#timeoutMs = o.timeoutMs;
    this.#retry = Object.freeze({ ...DEFAULT_RETRY_POLICY, ...o.retry });
    this.#logger = o.logger;
    this.#onAttempt = o.onAttempt;
    this.#ownsDispatcher = o.dispatcher === undefined;
    this.#dispatcher = o.dispatcher ?? new Pool(this.#origin, { connections: 16, keepAliveTimeout: 10_000 });
  }

  /** The base URL without a trailing slash; no token in it. */
  get baseUrl(): string {
    return this.#origin + this.#basePath;
  }

  /** The Authorization header value sent with every call (a secret: never log it). */
  get authorization(): string {
    return this.#authorization;
  }

  /**
   * Swaps the token (a reload of the settings): calls from now on carry the
   * new one; calls under way finish with the old. Throws
   * PlatformClientOptionsError when the token cannot be sent.
   */
  setCredentials(token: string, tokenType: TokenType): void {
    const parsed = CredentialsSchema.safeParse({ token, tokenType });
    if (!parsed.success) {
      const problems = zodIssues(parsed.error).map((i) => `${i.path}: ${i.message}`);
      throw new PlatformClientOptionsError(`platform credentials invalid: ${problems.join('; ')}`);
    }
    this.#authorization = `${parsed.data.tokenType} ${parsed.data.token}`;
  }

  /**
   * A pagination link as a path for `request`. Only the path and query are
   * kept, so the token is never sent to another origin a link might name.
   */
  pathOfLink(link: string): string {
    const url = new URL(link, `${this.baseUrl}/`);
    const path = url.pathname.startsWith(`${this.#basePath}/`) ? url.pathname.slice(this.#basePath.length) : url.pathname;
    return path + url.search;
  }

  /** Sends with retry; resolves on 2xx, throws a platform error otherwise. */
  async request(req: PlatformRequest): Promise<PlatformResponse> {
    return this.#send(req, false) as Promise<PlatformResponse>;
  }

  /**
   * `request`, but a 2xx body is handed over unread (a CSV, an XLSX, an
   * image): the caller must consume or destroy it. Retries happen only before
   * an answer's headers arrived. The timeout then covers each read.
   */
  async requestStream(req: PlatformRequest): Promise<PlatformStreamResponse> {
    return this.#send(req, true) as Promise<PlatformStreamResponse>;
  }

  async #send(req: PlatformRequest, stream: boolean): Promise<PlatformResponse | PlatformStreamResponse> {
    const fullPath = this.#basePath + req.path + queryString(req.query);
    const policy: RetryPolicy = { ...this.#retry, ...req.retry };
    const timeoutMs = req.timeoutMs ?? this.#timeoutMs;
    const headers = {
      ...callerHeaders(req.headers, req.anonymous === true),
      ...this.#baseHeaders(req.rawBody === undefined && req.body !== undefined, req.anonymous === true),
    };
    let body: Outgoing = typeof req.rawBody === 'string' ? req.rawBody : req.body === undefined ? undefined : JSON.stringify(req.body);
    // Not `instanceof FormData`: the global FormData is Node's own bundled undici, loaded at its first mention (~2 MiB
    // held by every gateway that posts, though only uploads are multipart; docs/decisions/footprint.md).
    if (req.rawBody !== undefined && typeof req.rawBody !== 'string') {
      // undici's request() takes only its own FormData class: encode the multipart body once (uploads are small
      // images), so every retry sends the same bytes and boundary.
      const encoded = new Response(req.rawBody);
      headers['content-type'] = encoded.headers.get('content-type') ?? 'multipart/form-data';
      body = new Uint8Array(await encoded.arrayBuffer());
    }
    return withRetry((attempt) => this.#attempt({ method: req.method, path: fullPath, body, headers, stream, redirects: req.redirects === true }, timeoutMs, attempt, req.signal), {
      policy,
      classify: req.method === 'POST' && req.idempotent !== true ? classifyUnsafe : classify,
      signal: req.signal,
    });
  }

  #baseHeaders(json: boolean, anonymous: boolean): Record<string, string> {
    return {
      ...(anonymous ? {} : { authorization: this.#authorization }),
      accept: 'application/json',
      'user-agent': USER_AGENT,
      ...(json ? { 'content-type': 'application/json' } : {}),
    };
  }

  /** `request`, then the 2xx body parsed with a (loose) response schema. */
  async requestJson<S extends z.ZodType>(req: PlatformRequest, schema: S): Promise<z.output<S>> {
    const res = await this.request(req);
    const parsed = schema.safeParse(res.body);
    if (parsed.success) return parsed.data;
    const call: PlatformCall = { method: req.method, path: this.#basePath + req.path + queryString(req.query), attempts: res.attempts };
    throw new PlatformResponseError(call, res.status, zodIssues(parsed.error), res.body);
  }

  /** Closes the own Pool; an injected dispatcher belongs to its owner. */
  async close(): Promise<void> {
    if (this.#ownsDispatcher) await this.#dispatcher.close();
  }

  async #attempt(
    out: OutgoingRequest,
    timeoutMs: number,
    attempt: number,
    callerSignal: AbortSignal | undefined,
  ): Promise<PlatformResponse | PlatformStreamResponse> {
    const { method, path, body, headers } = out;
    const call: PlatformCall = { method, path, attempts: attempt };
    const deadline = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      deadline.abort();
    }, timeoutMs);
    const { signal, unlink } = followCaller(deadline, callerSignal, out.stream);
    const started = performance.now();
    let status: number | undefined;
    let failure: string | undefined;
    try {
      const res = await this.#dispatcher.request({
        origin: this.#origin,
        path,
        method,
        headers,
        body,
        signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      status = res.statusCode;
      if (out.stream && status >= 200 && status < 300) {
        clearTimeout(timer);
        return { status, headers: res.headers, body: res.body, attempts: attempt };
      }
      const text = await res.body.text();
      const parsed = parseBody(text);
      const accepted = (status >= 200 && status < 300) || (out.redirects && status >= 300 && status < 400);
      if (accepted) return { status, headers: res.headers, body: parsed, attempts: attempt };
      const error = httpError(call, status, res.headers, text, parsed);
      failure = error.code;
      throw error;
    } catch (err) {
      if (err instanceof PlatformHttpError) throw err;
      const mapped = timedOut ? new PlatformTimeoutError(call, timeoutMs, { cause: err }) : mapTransportError(call, err, timeoutMs, callerSignal);
      failure = codeOf(mapped) ?? 'aborted';
      throw mapped;
    } finally {
      clearTimeout(timer);
      unlink();
      const elapsed = performance.now() - started;
      const durationMs = Math.round(elapsed);
      this.#logger?.debug({ method, path, status, durationMs, attempt, error: failure }, 'platform request');
      this.#onAttempt?.({ method, status, durationMs: elapsed, error: failure });
    }
  }
}

/**
 * The signal of one attempt: the deadline's, aborted too when the caller's is (with the caller's reason). An answer
 * read whole is done within the attempt, so a listener on the caller's signal, removed by `unlink` when the attempt
 * ends, does it, for 0.6 µs against `AbortSignal.any`'s 1.5 (which also follows its sources through weak references
 * for as long as the signal lives; docs/benchmarks.md at 65810b0, "An attempt's signal without `AbortSignal.any`").
 * A streamed answer outlives the attempt: it keeps `any`.
 */
function followCaller(deadline: AbortController, caller: AbortSignal | undefined, stream: boolean): { signal: AbortSignal; unlink: () => void } {
  if (caller === undefined) return { signal: deadline.signal, unlink: () => {} };
  if (stream) return { signal: AbortSignal.any([deadline.signal, caller]), unlink: () => {} };
  const follow = () => deadline.abort(caller.reason);
  if (caller.aborted) {
    follow();
    return { signal: deadline.signal, unlink: () => {} };
  }
  caller.addEventListener('abort', follow, { once: true });
  return { signal: deadline.signal, unlink: () => caller.removeEventListener('abort', follow) };
}
