/**
 * Slack's Web API over HTTP (https://api.slack.com/web): every method is a
 * POST to `<api_url>/<method>` with the bot token as `Authorization: Bearer`
 * (never in a URL or a body), its arguments form-encoded, or as JSON for the
 * write methods that take it (chat.postMessage, files.completeUploadExternal).
 * Slack answers JSON with `ok`; what is not `ok` becomes the error of
 * slack-errors.ts, and a 429 a `SlackRateLimitedError` with its Retry-After.
 *
 * Redirects are never followed, each request has `timeout_ms`, and Slack's
 * clock is kept from its `Date` headers (`clockNow()`), so the catch-up's
 * cursor never depends on the gateway's clock. The token goes only to the
 * configured API's origin, or to Slack's own hosts (files.slack.com) when the
 * API is Slack's (`tokenGoesTo`).
 */
import { answerExcerpt, parseRetryAfter, type Logger } from '../../src/connector/api.ts';
import type { z } from 'zod';
import { SlackRateLimitedError, SlackRefusedError, SlackUnavailableError, slackErrorFor } from './slack-errors.ts';

/** Slack's own hosts, to which the token may go when the API is Slack's. */
const SLACK_HOST = /(^|\.)slack\.com$/i;

export type SlackArgs = Record<string, string | number | boolean | object | undefined>;

export interface CallOptions {
  signal: AbortSignal;
  /** Send the arguments as a JSON body (write methods) instead of a form. */
  json?: boolean;
}

export class SlackApi {
  readonly #url: string;
  readonly #origin: string;
  readonly #timeoutMs: number;
  readonly #logger: Logger | undefined;
  #token: string;
  /** Slack's clock from the latest `Date` header, and `performance.now()` when it came. */
  #clock: { slack: number; at: number } | undefined;

  constructor(options: { apiUrl: string; token: string; timeoutMs: number; logger?: Logger }) {
    this.#url = options.apiUrl;
    this.#origin = new URL(options.apiUrl).origin;
    this.#token = options.token;
    this.#timeoutMs = options.timeoutMs;
    this.#logger = options.logger;
  }

  /** The API's host, for logs, errors and health (never a credential). */
  get host(): string {
    return new URL(this.#url).host;
  }

  get timeoutMs(): number {
    return this.#timeoutMs;
  }

  /** A new bot token (a settings reload); the next call carries it. */
  setToken(token: string): void {
    this.#token = token;
  }

  /** Whether the bot token may be sent to `url`: the API's own origin, or Slack's hosts over https when the API is Slack's. */
  tokenGoesTo(url: URL): boolean {
    if (url.origin === this.#origin) return true;
    const api = new URL(this.#origin);
    return url.protocol === 'https:' && api.protocol === 'https:' && SLACK_HOST.test(api.hostname) && SLACK_HOST.test(url.hostname);
  }

  /** The `Authorization` header for `url`, or none when the token may not go there. */
  authorizationFor(url: URL): Record<string, string> {
    return this.tokenGoesTo(url) ? { authorization: `Bearer ${this.#token}` } : {};
  }

  /** Slack's clock now (ms), from its latest `Date` header plus the time passed since; undefined before the first answer. */
  clockNow(): number | undefined {
    return this.#clock === undefined ? undefined : this.#clock.slack + (performance.now() - this.#clock.at);
  }

  /** Notes Slack's clock from an answer's `Date` header. */
  noteDate(header: string | null): void {
    const date = header ? Date.parse(header) : Number.NaN;
    if (!Number.isNaN(date)) this.#clock = { slack: date, at: performance.now() };
  }

  /** Calls `method`; resolves its answer checked against `schema`, or throws the error Slack's answer is. */
  async call<S extends z.ZodType>(method: string, args: SlackArgs, schema: S, options: CallOptions): Promise<z.output<S>> {
    const started = performance.now();
    const timeoutMs = this.#timeoutMs;
    const signal = AbortSignal.any([options.signal, AbortSignal.timeout(timeoutMs)]);
    const headers: Record<string, string> = { authorization: `Bearer ${this.#token}`, accept: 'application/json' };
    let body: string;
    if (options.json) {
      headers['content-type'] = 'application/json; charset=utf-8';
      body = JSON.stringify(Object.fromEntries(Object.entries(args).filter(([, v]) => v !== undefined)));
    } else {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = formOf(args);
    }
    let response: Response;
    let text: string;
    try {
      response = await fetch(`${this.#url}/${method}`, { method: 'POST', headers, body, redirect: 'manual', signal });
      text = await response.text();
    } catch (err) {
      if (options.signal.aborted) throw options.signal.reason;
      const reason = (err as Error).name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : ((err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message);
      throw new SlackUnavailableError(`cannot reach Slack at ${this.host} for ${method}: ${reason}`, undefined, { cause: err });
    }
    this.noteDate(response.headers.get('date'));
    this.#logger?.debug({ method, status: response.status, durationMs: Math.round(performance.now() - started) }, 'slack web api call');
    return parseAnswer(method, this.host, response, text, schema);
  }
}

/** Arguments as a form: objects and arrays as JSON text (Slack's way for `metadata`, `files`), undefined left out. */
export function formOf(args: SlackArgs): string {
  const form = new URLSearchParams();
  for (const [key, value] of Object.entries(args)) {
    if (value === undefined) continue;
    form.set(key, typeof value === 'object' ? JSON.stringify(value) : String(value));
  }
  return form.toString();
}

function parseAnswer<S extends z.ZodType>(method: string, host: string, response: Response, text: string, schema: S): z.output<S> {
  const status = response.status;
  if (status === 429) {
    const retryAfterMs = parseRetryAfter(response.headers.get('retry-after') ?? undefined);
    if (retryAfterMs !== undefined) throw new SlackRateLimitedError(`Slack at ${host} rate-limited ${method} (429): retry after ${retryAfterMs} ms`, retryAfterMs);
    throw new SlackUnavailableError(`Slack at ${host} rate-limited ${method} (429) without a Retry-After`, status);
  }
  let json: { ok?: unknown; error?: unknown } | undefined;
  try {
    json = JSON.parse(text) as typeof json;
  } catch {
    json = undefined;
  }
  if (status >= 500 || status === 408 || (status >= 300 && status < 400)) {
    throw new SlackUnavailableError(`Slack at ${host} answered ${method} with ${status}${status < 400 ? ' (a redirect, not followed)' : ''}: ${answerExcerpt(text)}`, status);
  }
  if (json === undefined || typeof json !== 'object' || json === null) {
    if (status >= 400) throw new SlackRefusedError(method, `HTTP ${status}`, answerExcerpt(text));
    throw new SlackUnavailableError(`Slack at ${host} answered ${method} with a body that is not JSON: ${answerExcerpt(text)}`, status);
  }
  if (json.ok !== true) {
    const word = typeof json.error === 'string' && json.error !== '' ? json.error : `HTTP ${status}`;
    throw slackErrorFor(method, word, detailOf(json));
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const where = parsed.error.issues.map((i) => `${i.path.join('.') || '(answer)'}: ${i.message}`).join('; ');
    throw new SlackUnavailableError(`Slack at ${host} answered ${method} in an unexpected shape: ${answerExcerpt(where)}`, status);
  }
  return parsed.data;
}

/** What else an `ok: false` answer says: the scope `needed`, and `response_metadata.messages`. */
function detailOf(json: Record<string, unknown>): string | undefined {
  const words: string[] = [];
  if (typeof json.needed === 'string') words.push(`needed: ${json.needed}`);
  const messages = (json.response_metadata as { messages?: unknown } | undefined)?.messages;
  if (Array.isArray(messages)) words.push(...messages.filter((m): m is string => typeof m === 'string'));
  return words.length === 0 ? undefined : answerExcerpt(words.join('; '));
}
