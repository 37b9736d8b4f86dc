/**
 * A ticket system's REST API over HTTP, for any adapter: JSON in and out (raw
 * bytes or a multipart form for a file), the credentials in headers (never in
 * a URL, so they are in no log line; never to a URL outside the configured
 * root), a timeout per request (a file's at least a minute), no redirect
 * followed but a download's when asked (then without credentials), and every
 * failure as a `TicketSystemError` that says what the system answered (its
 * own error words, picked by the adapter's `answerOf`, or the start of the body).
 */
import type { z } from 'zod';
import { parseRetryAfter, readCapped as readCappedBody } from '../../src/connector/api.ts';
import { TicketAttachmentTooLargeError, TicketAttachmentUnavailableError, TicketSystemError } from './ticket-adapter.ts';

export interface TicketResponse {
  status: number;
  /** The parsed body; undefined for an empty one (204). */
  json: unknown;
  /** The system's clock from the `Date` header, when given. */
  date: Date | undefined;
  /** The `Location` header (where a created record is), when given. */
  location: string | undefined;
}

export type Query = Record<string, string | number | undefined>;

/** What a request sends: a query, and a JSON body, raw bytes (with their type) or a multipart form; plus headers of its own. */
export interface RequestBody {
  query?: Query;
  json?: unknown;
  raw?: Buffer;
  /** The type of `raw` (default application/octet-stream). */
  contentType?: string;
  form?: FormData;
  /** Headers of this request besides the credentials (an API's XSRF opt-out). */
  headers?: Readonly<Record<string, string>>;
}

export interface DownloadOptions {
  /** Follow at most this many redirects (default none), each WITHOUT the credentials: a system that hands out files from another host. */
  redirects?: number;
  /** Fetch a URL outside the root too, without the credentials (default: refused). */
  anonymousElsewhere?: boolean;
  /** Why a hop's URL is not the file (a sign-in page), or undefined: then `TicketAttachmentUnavailableError`. */
  refuseHop?: (url: URL, hop: number) => string | undefined;
  /** The file's own type: a web page answered for a file of another type is not the file (a sign-in?). */
  contentType?: string;
  /** How errors name the request (default `GET <path>`): for a URL whose path carries a token. */
  what?: string;
}

export interface TicketHttpOptions {
  /** The system's name in errors ("Redmine"). */
  system: string;
  /** The root every path is under; only URLs below it get the credentials. */
  url: string;
  /** The credential headers of every request. */
  headers: Readonly<Record<string, string>>;
  /** What the credential is called in errors ("the API key"). */
  credential: string;
  timeoutMs: number;
  /** The system's own words in an error body (its error list), shortened; default: the start of the body. */
  answerOf?: (text: string) => string | undefined;
  /** A hint after an error status (" (the API key was refused)"). */
  hint?: (status: number) => string;
}

const ANSWER_MAX = 300;
/** Of a download's error page, at most this much is read (for the system's words). */
const ERROR_BODY_MAX = 64 * 1024;
/** A file's download or upload may take this long even when `timeout_ms` is shorter. */
export const FILE_TIMEOUT_MS = 60_000;

export class TicketHttp {
  readonly #base: string;
  readonly #options: TicketHttpOptions;
  readonly host: string;

  constructor(options: TicketHttpOptions) {
    this.#options = options;
    this.#base = options.url.replace(/\/+$/, '');
    this.host = new URL(options.url).host;
  }

  get baseUrl(): string {
    return this.#base;
  }

  /** Whether `url` is under the configured root (same origin, below its path): only such a URL gets the credentials. */
  owns(url: string): boolean {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return false;
    }
    const base = new URL(`${this.#base}/`);
    return target.origin === base.origin && target.username === '' && target.pathname.startsWith(base.pathname);
  }

  async get(path: string, query: Query, signal: AbortSignal): Promise<TicketResponse> {
    return this.send('GET', path, { query }, signal);
  }

  /**
   * One request under the root: `json` as the body, `raw` bytes or a `form`
   * (then the file timeout applies). A non-2xx answer or a body that is not
   * JSON is a `TicketSystemError` naming the system's words.
   */
  async send(method: string, path: string, body: RequestBody, signal: AbortSignal): Promise<TicketResponse> {
    const url = new URL(`${this.#base}${path}`);
    for (const [key, value] of Object.entries(body.query ?? {})) if (value !== undefined) url.searchParams.set(key, String(value));
    const what = `${method} ${url.pathname}`;
    const file = body.raw !== undefined || body.form !== undefined;
    const type = body.raw !== undefined ? { 'content-type': body.contentType || 'application/octet-stream' } : body.json !== undefined ? { 'content-type': 'application/json' } : {};
    const init: RequestInit = {
      method,
      headers: { accept: 'application/json', ...this.#options.headers, ...body.headers, ...type },
      body: body.raw !== undefined ? new Uint8Array(body.raw) : (body.form ?? (body.json !== undefined ? JSON.stringify(body.json) : undefined)),
    };
    const { response, text } = await this.#fetch(what, url, init, file ? FILE_TIMEOUT_MS : 0, signal, async (res) => ({ response: res, text: await res.text() }));
    const dateHeader = response.headers.get('date');
    const date = dateHeader ? new Date(dateHeader) : undefined;
    if (response.status < 200 || response.status > 299) throw this.#refusal(response, text, what);
    let json: unknown;
    if (text.trim() !== '') {
      try {
        json = JSON.parse(text);
      } catch {
        throw new TicketSystemError(`${this.#options.system} at ${this.host} answered ${what} with a body that is not JSON: is the url the ${this.#options.system} root?`, {
          status: response.status,
          answer: shortAnswer(text),
        });
      }
    }
    return { status: response.status, json, date: date && !Number.isNaN(date.getTime()) ? date : undefined, location: response.headers.get('location') ?? undefined };
  }

  /**
   * The bytes at `url`, which must be under the root (the credentials go
   * nowhere else) unless `anonymousElsewhere`. Refused past `maxBytes` by the
   * announced length or as the bytes arrive (`TicketAttachmentTooLargeError`),
   * so no more than that is ever held; a non-2xx answer is a `TicketSystemError`
   * with its status. Redirects only as `options` allow.
   */
  async download(url: string, maxBytes: number, signal: AbortSignal, options: DownloadOptions = {}): Promise<Buffer> {
    const owned = this.owns(url);
    if (!owned && !options.anonymousElsewhere) throw new TicketSystemError(`refusing to send ${this.#options.credential} of ${this.host} to a URL outside it`);
    const unavailable = (why: string, status?: number) => new TicketAttachmentUnavailableError(`${this.#options.system} at ${this.host}: ${options.what ?? 'the file'} ${why}`, status === undefined ? {} : { status });
    let target = new URL(url);
    // The credentials go with the first request only, and only under the root.
    let headers: Record<string, string> = owned ? { ...this.#options.headers } : {};
    const redirects = options.redirects ?? 0;
    for (let hop = 0; hop <= redirects; hop++) {
      if (target.protocol !== 'https:' && target.protocol !== 'http:') throw unavailable(`is served from a ${target.protocol} address`);
      const refused = options.refuseHop?.(target, hop);
      if (refused !== undefined) throw unavailable(refused, 401);
      const what = options.what ?? `GET ${target.pathname}`;
      const answer = await this.#fetch(what, target, { method: 'GET', headers }, FILE_TIMEOUT_MS, signal, async (response) => {
        if (response.status >= 300 && response.status <= 399 && redirects > 0) {
          await response.body?.cancel().catch(() => {});
          if (hop === redirects) throw unavailable(`was redirected more than ${redirects} times`, response.status);
          const location = response.headers.get('location');
          if (!location) throw unavailable(`was answered ${response.status} without a Location`, response.status);
          return { next: new URL(location, target) };
        }
        if (response.status < 200 || response.status > 299) {
          const start = await readCapped(response, ERROR_BODY_MAX, what).catch(() => Buffer.alloc(0));
          throw this.#refusal(response, start.toString('utf8'), what);
        }
        if (options.contentType !== undefined && /^text\/html/i.test(response.headers.get('content-type') ?? '') && !/html/i.test(options.contentType)) {
          await response.body?.cancel().catch(() => {});
          throw unavailable('was answered with a web page instead of the file (a sign-in?)');
        }
        return { bytes: await readCapped(response, maxBytes, `${what} at ${this.host}`) };
      });
      if (answer.bytes) return answer.bytes;
      target = answer.next!;
      headers = {};
    }
    throw unavailable(`was redirected more than ${redirects} times`);
  }

  /** One request, its answer read by `read` within the timeout (at least `minTimeoutMs`); not reached or cut off: a `TicketSystemError` without status. */
  async #fetch<T>(what: string, url: URL, init: RequestInit, minTimeoutMs: number, signal: AbortSignal, read: (response: Response) => Promise<T>): Promise<T> {
    const timeoutMs = Math.max(this.#options.timeoutMs, minTimeoutMs);
    try {
      const response = await fetch(url, { ...init, redirect: 'manual', signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]) });
      return await read(response);
    } catch (err) {
      if (signal.aborted || err instanceof TicketSystemError) throw err;
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      const reason = (err as Error).name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : (cause?.code ?? cause?.message ?? (err as Error).message);
      throw new TicketSystemError(`cannot reach ${this.#options.system} at ${this.host} (${what}): ${reason}`, { cause: err });
    }
  }

  #refusal(response: Response, text: string, what: string): TicketSystemError {
    const hint = this.#options.hint?.(response.status) ?? '';
    return new TicketSystemError(`${this.#options.system} at ${this.host} answered ${what} with ${response.status}${hint}`, {
      status: response.status,
      answer: this.#options.answerOf?.(text) ?? shortAnswer(text),
      retryAfterMs: parseRetryAfter(response.headers.get('retry-after') ?? undefined),
    });
  }
}

/** The body, refused past `maxBytes` by its Content-Length or as it arrives (`TicketAttachmentTooLargeError`): never more is held. */
export function readCapped(response: Response, maxBytes: number, what: string): Promise<Buffer> {
  return readCappedBody(response, maxBytes, () => new TicketAttachmentTooLargeError(`${what}: the file is larger than the ${maxBytes} bytes allowed`));
}

/** The start of a body, whitespace folded, at most 300 characters; undefined when empty. */
export function shortAnswer(text: string): string | undefined {
  const trimmed = text.replace(/\s+/g, ' ').trim();
  return trimmed === '' ? undefined : trimmed.slice(0, ANSWER_MAX);
}

/** An answer checked against its schema; an unexpected shape is a malformed `TicketSystemError` naming where (`Redmine at host`) and what. */
export function parseAnswer<T extends z.ZodType>(schema: T, json: unknown, where: string, what: string): z.output<T> {
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const at = issue && issue.path.length > 0 ? ` at ${issue.path.join('.')}` : '';
    throw new TicketSystemError(`${where} answered ${what} with an unexpected shape${at}: ${issue?.message ?? 'invalid'}`, { malformed: true });
  }
  return parsed.data;
}
