/**
 * The Graph API over HTTP for the connector: every call under
 * `<api_url>/<api_version>/`, the access token as `Authorization: Bearer`
 * (never in a URL, so in no log line), a timeout per request (a file's at
 * least a minute), no redirect followed for a call, every answer read, and
 * every failure one of graph-errors.ts's errors naming what was asked.
 *
 * A media download goes to the URL Graph handed out for it (WhatsApp's file
 * host, not the API's): the token goes with the first request only, and only
 * over https or to the API's own host name; up to 3 redirects are followed
 * without it. The bytes are refused past `maxBytes`, by the announced length
 * or as they arrive, so no more is ever held.
 */
import { readCapped } from '../../src/connector/api.ts';
import { graphFailure, WhatsAppUnavailableError } from './graph-errors.ts';

/** A file's download or upload may take this long even when `timeout_ms` is shorter. */
export const FILE_TIMEOUT_MS = 60_000;
const MAX_REDIRECTS = 3;

/** The body's bytes are more than the caller may hold. */
export class MediaTooLargeError extends Error {
  override readonly name = 'MediaTooLargeError';
}

export interface GraphHttpOptions {
  apiUrl: string;
  version: string;
  token: string;
  timeoutMs: number;
}

export class GraphHttp {
  readonly host: string;
  readonly version: string;
  readonly #root: string;
  readonly #apiHostname: string;
  #token: string;
  readonly #timeoutMs: number;

  constructor(options: GraphHttpOptions) {
    this.host = new URL(options.apiUrl).host;
    this.#apiHostname = new URL(options.apiUrl).hostname;
    this.version = options.version;
    this.#root = `${options.apiUrl}/${options.version}`;
    this.#token = options.token;
    this.#timeoutMs = options.timeoutMs;
  }

  /** A new token (a settings reload) for the calls from now on. */
  setToken(token: string): void {
    this.#token = token;
  }

  /** One call: `json` or a multipart `form` as the body; resolves with the parsed answer of a 2xx. */
  async call(method: 'GET' | 'POST', path: string, body: { json?: unknown; form?: FormData }, what: string, signal: AbortSignal): Promise<unknown> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.#token}`, accept: 'application/json' };
    if (body.json !== undefined) headers['content-type'] = 'application/json';
    const init: RequestInit = { method, headers, body: body.form ?? (body.json === undefined ? undefined : JSON.stringify(body.json)), redirect: 'manual' };
    const timeoutMs = body.form ? Math.max(this.#timeoutMs, FILE_TIMEOUT_MS) : this.#timeoutMs;
    return this.#timed(what, timeoutMs, signal, async (deadline) => {
      const response = await fetch(`${this.#root}${path}`, { ...init, signal: deadline });
      const text = await response.text();
      if (response.status < 200 || response.status > 299) throw graphFailure(response.status, text, response.headers.get('retry-after'), what);
      try {
        return text === '' ? undefined : (JSON.parse(text) as unknown);
      } catch {
        throw new WhatsAppUnavailableError(`WhatsApp answered ${what} with a body that is not JSON: is api_url the Graph API?`);
      }
    });
  }

  /** The bytes at a media URL Graph handed out, with their content type; `MediaTooLargeError` past `maxBytes`. */
  async download(url: string, maxBytes: number, what: string, signal: AbortSignal): Promise<{ content: Buffer; contentType: string }> {
    let target = new URL(url);
    if (target.protocol !== 'https:' && target.hostname !== this.#apiHostname) {
      throw new WhatsAppUnavailableError(`refusing to send the access token to ${target.host} without https (${what})`);
    }
    return this.#timed(what, Math.max(this.#timeoutMs, FILE_TIMEOUT_MS), signal, async (deadline) => {
      for (let hop = 0; ; hop += 1) {
        const headers: Record<string, string> = hop === 0 ? { authorization: `Bearer ${this.#token}` } : {};
        const response = await fetch(target, { headers, redirect: 'manual', signal: deadline });
        const location = response.headers.get('location');
        if (response.status >= 300 && response.status <= 399 && location !== null && hop < MAX_REDIRECTS) {
          await response.body?.cancel().catch(() => {});
          target = new URL(location, target);
          continue;
        }
        if (response.status < 200 || response.status > 299) {
          throw graphFailure(response.status, (await response.text().catch(() => '')).slice(0, 4_096), response.headers.get('retry-after'), what);
        }
        const contentType = (response.headers.get('content-type') ?? 'application/octet-stream').split(';')[0]!.trim().toLowerCase();
        return { content: await readCapped(response, maxBytes, () => new MediaTooLargeError(`${what}: larger than the ${maxBytes} bytes allowed`)), contentType };
      }
    });
  }

  /** Runs `fn` with a signal that aborts at the caller's abort or after `timeoutMs`; no answer is a transient error. */
  async #timed<T>(what: string, timeoutMs: number, signal: AbortSignal, fn: (deadline: AbortSignal) => Promise<T>): Promise<T> {
    try {
      return await fn(AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]));
    } catch (err) {
      if (signal.aborted || (err instanceof Error && 'code' in err && String(err.code).startsWith('TG_')) || err instanceof MediaTooLargeError) throw err;
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      const reason = (err as Error).name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : (cause?.code ?? cause?.message ?? (err as Error).message);
      throw new WhatsAppUnavailableError(`cannot reach WhatsApp at ${this.host} (${what}): ${reason}`, undefined, { cause: err });
    }
  }
}
