/**
 * Redmine's REST API over HTTP: JSON in and out, the API key in the
 * `X-Redmine-API-Key` header (never in a URL, so it is in no log line), a
 * timeout per request, and every failure as a `TicketSystemError` that says
 * what Redmine answered (its `errors` list, or the start of the body).
 */
import { parseRetryAfter } from '../../src/connector/api.ts';
import { TicketSystemError } from './ticket-adapter.ts';

export interface RedmineResponse {
  status: number;
  /** The parsed body; undefined for an empty one (204). */
  json: unknown;
  /** Redmine's clock from the `Date` header, when given. */
  date: Date | undefined;
}

type Query = Record<string, string | number | undefined>;

const ANSWER_MAX = 300;

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

  async get(path: string, query: Query, signal: AbortSignal): Promise<RedmineResponse> {
    return this.#send('GET', path, query, undefined, signal);
  }

  async put(path: string, body: unknown, signal: AbortSignal): Promise<RedmineResponse> {
    return this.#send('PUT', path, {}, body, signal);
  }

  async #send(method: string, path: string, query: Query, body: unknown, signal: AbortSignal): Promise<RedmineResponse> {
    const url = new URL(`${this.#base}${path}`);
    for (const [key, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(key, String(value));
    const what = `${method} ${url.pathname}`;
    let response: Response;
    let text: string;
    try {
      response = await fetch(url, {
        method,
        headers: {
          accept: 'application/json',
          'x-redmine-api-key': this.#apiKey,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        redirect: 'manual',
        signal: AbortSignal.any([signal, AbortSignal.timeout(this.#timeoutMs)]),
      });
      text = await response.text();
    } catch (err) {
      if (signal.aborted) throw err;
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      const reason = (err as Error).name === 'TimeoutError' ? `no answer within ${this.#timeoutMs} ms` : (cause?.code ?? cause?.message ?? (err as Error).message);
      throw new TicketSystemError(`cannot reach Redmine at ${this.host} (${what}): ${reason}`, { cause: err });
    }
    const dateHeader = response.headers.get('date');
    const date = dateHeader ? new Date(dateHeader) : undefined;
    if (response.status < 200 || response.status > 299) {
      throw new TicketSystemError(`Redmine at ${this.host} answered ${what} with ${response.status}${describe(response.status)}`, {
        status: response.status,
        answer: answerOf(text),
        retryAfterMs: parseRetryAfter(response.headers.get('retry-after') ?? undefined),
      });
    }
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
