/**
 * The Bot API over HTTP (https://core.telegram.org/bots/api#making-requests):
 *
 *   POST <api_url>/bot<token>/<method>          JSON parameters → {"ok": true, "result": …}
 *   POST <api_url>/bot<token>/sendDocument      multipart/form-data with the file
 *   GET  <api_url>/file/bot<token>/<file_path>  a file's bytes (the path from getFile)
 *
 * The token is part of every URL's path, so no URL ever leaves this module:
 * errors and logs name the host and the method only, and any text that came
 * back (a proxy's error page) has the token cut out before it is kept. Each
 * request has a timeout (a long poll: its wait plus `timeout_ms`; a file: at
 * least a minute), follows no redirect, and fails as one of errors.ts's
 * errors; the caller's signal aborting throws its reason.
 */
import type { z } from 'zod';
import { answerExcerpt, readCapped } from '../../src/connector/api.ts';
import { errorOfAnswer, TelegramFileTooLargeError, TelegramRequestRefusedError, TelegramUnavailableError, type FailureBody } from './errors.ts';

/** A file's download or upload may take this long even when `timeout_ms` is shorter. */
export const FILE_TIMEOUT_MS = 60_000;

export interface BotApiOptions {
  apiUrl: string;
  token: string;
  timeoutMs: number;
}

/** A file to upload with a send method: the form field it goes in (`document`, `photo`) and its bytes. */
export interface UploadFile {
  field: string;
  filename: string;
  contentType: string;
  content: Buffer;
}

export class BotApi {
  /** The Bot API's host (and port): what errors, logs and health name. */
  readonly host: string;
  readonly timeoutMs: number;
  readonly #base: string;
  readonly #token: string;

  constructor(options: BotApiOptions) {
    this.#base = options.apiUrl.replace(/\/+$/, '');
    this.#token = options.token;
    this.host = new URL(this.#base).host;
    this.timeoutMs = options.timeoutMs;
  }

  /** Calls `method` with JSON parameters (undefined ones left out); resolves its `result`, checked by `schema`. */
  async call<S extends z.ZodType>(method: string, params: Readonly<Record<string, unknown>>, schema: S, signal: AbortSignal, options: { timeoutMs?: number } = {}): Promise<z.output<S>> {
    const init: RequestInit = { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(params) };
    return this.#result(method, init, options.timeoutMs ?? this.timeoutMs, schema, signal);
  }

  /** Calls a send method with `fields` and one file as multipart/form-data (what Telegram asks for uploads). */
  async upload<S extends z.ZodType>(method: string, fields: Readonly<Record<string, string | number>>, file: UploadFile, schema: S, signal: AbortSignal): Promise<z.output<S>> {
    const form = new FormData();
    for (const [key, value] of Object.entries(fields)) form.set(key, String(value));
    form.set(file.field, new Blob([new Uint8Array(file.content)], { type: file.contentType }), file.filename);
    return this.#result(method, { method: 'POST', body: form }, Math.max(this.timeoutMs, FILE_TIMEOUT_MS), schema, signal);
  }

  /**
   * The bytes of the file at `filePath` (getFile's `file_path`), refused past
   * `maxBytes` by the announced length or as they arrive: never more is held.
   */
  async download(filePath: string, maxBytes: number, signal: AbortSignal): Promise<Buffer> {
    const what = 'file download';
    const path = filePath.split('/').map(encodeURIComponent).join('/');
    const url = `${this.#base}/file/bot${this.#token}/${path}`;
    return this.#fetch(what, url, { method: 'GET' }, Math.max(this.timeoutMs, FILE_TIMEOUT_MS), signal, async (response) => {
      if (response.status < 200 || response.status > 299) {
        const text = this.#clean(await response.text().catch(() => ''));
        const body = parseJson(text);
        // A path Telegram does not know (expired, never issued) is 404 here, not a refused token.
        if (response.status === 404) return Promise.reject(new TelegramRequestRefusedError(`Telegram at ${this.host} answered a ${what} with 404: the file is not there (any more)`, { method: what, status: 404, description: 'Not Found' }));
        return Promise.reject(errorOfAnswer(this.host, what, response.status, body, answerExcerpt(text)));
      }
      return readCapped(response, maxBytes, () => new TelegramFileTooLargeError(`a ${what} from Telegram at ${this.host}: the file is larger than the ${maxBytes} bytes allowed`));
    });
  }

  /** One request whose JSON answer is `{ok, result}`; anything else is the error it means. */
  async #result<S extends z.ZodType>(method: string, init: RequestInit, timeoutMs: number, schema: S, signal: AbortSignal): Promise<z.output<S>> {
    const url = `${this.#base}/bot${this.#token}/${encodeURIComponent(method)}`;
    const { status, text } = await this.#fetch(method, url, init, timeoutMs, signal, async (response) => ({ status: response.status, text: await response.text() }));
    const clean = this.#clean(text);
    const body = parseJson(clean);
    if (status < 200 || status > 299 || body?.ok !== true) throw errorOfAnswer(this.host, method, status, body, answerExcerpt(clean));
    const parsed = schema.safeParse(body.result);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const at = issue && issue.path.length > 0 ? ` at result.${issue.path.join('.')}` : '';
      const description = `an answer of an unexpected shape${at}: ${issue?.message ?? 'invalid'}`;
      throw new TelegramUnavailableError(`Telegram at ${this.host} answered ${method} with ${description}`, { method, status, description });
    }
    return parsed.data;
  }

  /** One request, its answer read by `read` within the timeout; not reached, cut off or timed out: TelegramUnavailableError. */
  async #fetch<T>(method: string, url: string, init: RequestInit, timeoutMs: number, signal: AbortSignal, read: (response: Response) => Promise<T>): Promise<T> {
    try {
      const response = await fetch(url, { ...init, redirect: 'manual', signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]) });
      return await read(response);
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      if (answerFrom(err)) throw err;
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      const reason = (err as Error).name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : this.#clean(cause?.code ?? cause?.message ?? (err as Error).message);
      // No `cause`: a fetch error may carry the URL, and with it the token.
      throw new TelegramUnavailableError(`cannot reach Telegram at ${this.host} (${method}): ${reason}`, { method, status: undefined, description: reason });
    }
  }

  /** `text` with the bot token cut out (an echoing proxy's error page, a network error naming the URL). */
  #clean(text: string): string {
    return text.includes(this.#token) ? text.replaceAll(this.#token, '<bot token>') : text;
  }
}

/** Whether `err` is one of the connector's own answer errors (already worded), not a transport failure. */
function answerFrom(err: unknown): boolean {
  return err instanceof TelegramUnavailableError || err instanceof TelegramFileTooLargeError || (err as { answer?: unknown } | null)?.answer !== undefined;
}

function parseJson(text: string): (FailureBody & { result?: unknown }) | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' ? (value as FailureBody & { result?: unknown }) : undefined;
  } catch {
    return undefined;
  }
}
