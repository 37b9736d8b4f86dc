/**
 * Redmine's REST API over HTTP: JSON in and out (and raw bytes for a file's
 * upload and download), the API key in the `X-Redmine-API-Key` header (never
 * in a URL, so it is in no log line; never to a URL outside the Redmine url),
 * a timeout per request, no redirect followed, and every failure as a
 * `TicketSystemError` that says what Redmine answered (its `errors` list, or
 * the start of the body).
 */
import { parseRetryAfter } from '../../src/connector/api.ts';
import { TicketAttachmentTooLargeError, TicketSystemError } from '../ticket/ticket-adapter.ts';

export interface RedmineResponse {
  status: number;
  /** The parsed body; undefined for an empty one (204). */
  json: unknown;
  /** Redmine's clock from the `Date` header, when given. */
  date: Date | undefined;
}

type Query = Record<string, string | number | undefined>;

const ANSWER_MAX = 300;
/** Of a download's error page, at most this much is read (for Redmine's words). */
const ERROR_BODY_MAX = 64 * 1024;
/** A file's download or upload may take this long even when `timeout_ms` is shorter. */
export const FILE_TIMEOUT_MS = 60_000;

export class RedmineHttp {
  readonly #base: string;
  readonly #apiKey: string;
  readonly #timeoutMs: number;
  readonly host: string;

  constructor(url: string, apiKey: string, timeoutMs: number) {
    this.#base = url.replace(/\/+$/, '');
    this.#apiKey = apiKey;
    this.#timeoutMs = timeoutMs;
    this.host = new URL(url).host;
  }

  get baseUrl(): string {
    return this.#base;
  }

  /** Whether `url` is under the Redmine url (same origin, below its path): only such a URL gets the API key. */
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

  async get(path: string, query: Query, signal: AbortSignal): Promise<RedmineResponse> {
    return this.#send('GET', path, query, undefined, signal);
  }

  async put(path: string, body: unknown, signal: AbortSignal): Promise<RedmineResponse> {
    return this.#send('PUT', path, {}, { json: body }, signal);
  }

  /** `POST /uploads.json?filename=…` with the raw bytes; Redmine answers `{ upload: { token } }`. */
  async upload(filename: string, content: Buffer, signal: AbortSignal): Promise<RedmineResponse> {
    return this.#send('POST', '/uploads.json', { filename }, { raw: content }, signal);
  }

  /**
   * The bytes at `url`, which must be under the Redmine url (the API key goes
   * nowhere else); no redirect is followed. Refused past `maxBytes` by the
   * announced length or as the bytes arrive (`TicketAttachmentTooLargeError`),
   * so no more than that is ever held; a non-2xx answer is a `TicketSystemError`
   * with its status.
   */
  async download(url: string, maxBytes: number, signal: AbortSignal): Promise<Buffer> {
    if (!this.owns(url)) throw new TicketSystemError(`refusing to send the API key of ${this.host} to a URL outside it`);
    const target = new URL(url);
    const what = `GET ${target.pathname}`;
    return this.#fetch(what, target, { method: 'GET', headers: { 'x-redmine-api-key': this.#apiKey } }, FILE_TIMEOUT_MS, signal, async (response) => {
      if (response.status < 200 || response.status > 299) {
        const start = await readCapped(response, ERROR_BODY_MAX, what).catch(() => Buffer.alloc(0));
        throw this.#refusal(response, start.toString('utf8'), what);
      }
      return readCapped(response, maxBytes, `${what} at ${this.host}`);
    });
  }

  async #send(method: string, path: string, query: Query, body: { json: unknown } | { raw: Buffer } | undefined, signal: AbortSignal): Promise<RedmineResponse> {
    const url = new URL(`${this.#base}${path}`);
    for (const [key, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(key, String(value));
    const what = `${method} ${url.pathname}`;
    const type = body === undefined ? {} : { 'content-type': 'json' in body ? 'application/json' : 'application/octet-stream' };
    const init: RequestInit = {
      method,
      headers: { accept: 'application/json', 'x-redmine-api-key': this.#apiKey, ...type },
      body: body === undefined ? undefined : 'json' in body ? JSON.stringify(body.json) : new Uint8Array(body.raw),
    };
    const timeoutMs = body !== undefined && 'raw' in body ? FILE_TIMEOUT_MS : 0;
    const { response, text } = await this.#fetch(what, url, init, timeoutMs, signal, async (res) => ({ response: res, text: await res.text() }));
    const dateHeader = response.headers.get('date');
    const date = dateHeader ? new Date(dateHeader) : undefined;
    if (response.status < 200 || response.status > 299) throw this.#refusal(response, text, what);
    let json: unknown;
    if (text.trim() !== '') {
      try {
        json = JSON.parse(text);
      } catch {
        throw new TicketSystemError(`Redmine at ${this.host} answered ${what} with a body that is not JSON: is the url the Redmine root?`, {
          status: response.status,
          answer: answerOf(text),
        });
      }
    }
    return { status: response.status, json, date: date && !Number.isNaN(date.getTime()) ? date : undefined };
  }

  /** One request, its answer read by `read` within the timeout (at least `minTimeoutMs`); not reached or cut off: a `TicketSystemError` without status. */
  async #fetch<T>(what: string, url: URL, init: RequestInit, minTimeoutMs: number, signal: AbortSignal, read: (response: Response) => Promise<T>): Promise<T> {
    const timeoutMs = Math.max(this.#timeoutMs, minTimeoutMs);
    try {
      const response = await fetch(url, { ...init, redirect: 'manual', signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]) });
      return await read(response);
    } catch (err) {
      if (signal.aborted || err instanceof TicketSystemError) throw err;
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      const reason = (err as Error).name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : (cause?.code ?? cause?.message ?? (err as Error).message);
      throw new TicketSystemError(`cannot reach Redmine at ${this.host} (${what}): ${reason}`, { cause: err });
    }
  }

  #refusal(response: Response, text: string, what: string): TicketSystemError {
    return new TicketSystemError(`Redmine at ${this.host} answered ${what} with ${response.status}${describe(response.status)}`, {
      status: response.status,
      answer: answerOf(text),
      retryAfterMs: parseRetryAfter(response.headers.get('retry-after') ?? undefined),
    });
  }
}

/** The body, refused past `maxBytes` by its Content-Length or as it arrives. */
async function readCapped(response: Response, maxBytes: number, what: string): Promise<Buffer> {
  const tooLarge = () => new TicketAttachmentTooLargeError(`${what}: the file is larger than the ${maxBytes} bytes allowed`);
  const announced = Number(response.headers.get('content-length') ?? '');
  if (Number.isFinite(announced) && announced > maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw tooLarge();
  }
  if (response.body === null) return Buffer.alloc(0);
  const reader = response.body.getReader();
  const chunks: Buffer[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
  }
  return Buffer.concat(chunks, size);
}

function describe(status: number): string {
  if (status === 401) return ' (the API key was refused)';
  if (status === 403) return ' (forbidden: is the REST API enabled, and may this user do that?)';
  if (status === 404) return ' (not found, or not visible to the API key’s user)';
  if (status === 422) return ' (refused as invalid)';
  if (status >= 300 && status <= 399) return ' (a redirect: is the url the Redmine root, with the right scheme?)';
  return '';
}

/** Redmine's `{"errors": [...]}` joined, or the start of the body. */
function answerOf(text: string): string | undefined {
  try {
    const parsed = JSON.parse(text) as { errors?: unknown };
    if (Array.isArray(parsed.errors)) return parsed.errors.map(String).join('; ').slice(0, ANSWER_MAX);
  } catch {
    // not JSON
  }
  const trimmed = text.replace(/\s+/g, ' ').trim();
  return trimmed === '' ? undefined : trimmed.slice(0, ANSWER_MAX);
}
