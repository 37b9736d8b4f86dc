/**
 * Jira Cloud's REST APIs over HTTP (../ticket/ticket-http.ts): the platform
 * API (`/rest/api/3`) and the Service Management API (`/rest/servicedeskapi`)
 * under the site root, Basic auth with the account's e-mail and API token,
 * and the three error bodies Jira answers with as its words —
 *
 *   platform        {"errorMessages": ["…"], "errors": {"field": "…"}}
 *   service desk    {"errorMessage": "…", "i18nErrorMessage": {…}}
 *   the edge (401)  {"message": "Client must be authenticated to access this resource.", "status-code": 401}
 *
 * plus the one multipart request the adapter makes: a file for a temporary
 * attachment (`attachTemporaryFile`), with the headers its reference names
 * (`X-Atlassian-Token: no-check` against Jira's XSRF check, and
 * `X-ExperimentalApi: opt-in` as its example sends; every request carries
 * the latter, for the experimental list of a comment's files). The seam's `TicketHttp`
 * sends JSON or raw bytes only, so that request is made here, with the same
 * rules: credentials only under the root, no redirect, a file's timeout, and
 * every failure a `TicketSystemError` with Jira's words and `Retry-After`.
 */
import { parseRetryAfter } from '../../src/connector/api.ts';
import { TicketSystemError } from '../ticket/ticket-adapter.ts';
import { FILE_TIMEOUT_MS, TicketHttp, shortAnswer, type Query, type TicketResponse } from '../ticket/ticket-http.ts';

const ANSWER_MAX = 300;

export class JsmHttp extends TicketHttp {
  readonly #authorization: string;
  readonly #timeoutMs: number;
  /** Jira's clock from the latest `Date` header, and `performance.now()` when it came. */
  #clock: { jira: number; at: number } | undefined;

  constructor(url: string, auth: { email: string; apiToken: string }, timeoutMs: number) {
    const authorization = `Basic ${Buffer.from(`${auth.email}:${auth.apiToken}`).toString('base64')}`;
    // Every request opts in to the experimental endpoints (a comment's files, the temporary file's example): harmless elsewhere.
    super({ system: 'Jira', url, headers: { authorization, 'x-experimentalapi': 'opt-in' }, credential: 'the API token', timeoutMs, answerOf, hint: describe });
    this.#authorization = authorization;
    this.#timeoutMs = timeoutMs;
  }

  override async send(method: string, path: string, body: { query?: Query; json?: unknown; raw?: Buffer }, signal: AbortSignal): Promise<TicketResponse> {
    return this.#timed(await super.send(method, path, body, signal));
  }

  async post(path: string, json: unknown, signal: AbortSignal): Promise<TicketResponse> {
    return this.send('POST', path, { json }, signal);
  }

  /** Jira's clock now, estimated from its latest `Date` header (whole seconds) and the time since; undefined before one came. */
  clockNow(): number | undefined {
    return this.#clock === undefined ? undefined : this.#clock.jira + (performance.now() - this.#clock.at);
  }

  #timed(response: TicketResponse): TicketResponse {
    if (response.date !== undefined && !Number.isNaN(response.date.getTime())) this.#clock = { jira: response.date.getTime(), at: performance.now() };
    return response;
  }

  /** One file as the multipart field `file` (the only name Jira takes), answered with JSON. */
  async postFile(path: string, file: { filename: string; contentType: string; content: Buffer }, signal: AbortSignal): Promise<TicketResponse> {
    const url = `${this.baseUrl}${path}`;
    const what = `POST ${new URL(url).pathname}`;
    if (!this.owns(url)) throw new TicketSystemError(`refusing to send the API token of ${this.host} to a URL outside it`);
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(file.content)], { type: file.contentType }), file.filename);
    const timeoutMs = Math.max(this.#timeoutMs, FILE_TIMEOUT_MS);
    let response: Response;
    let text: string;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: { accept: 'application/json', authorization: this.#authorization, 'x-atlassian-token': 'no-check', 'x-experimentalapi': 'opt-in' },
        body: form,
        redirect: 'manual',
        signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
      });
      text = await response.text();
    } catch (err) {
      if (signal.aborted) throw err;
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      const reason = (err as Error).name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : (cause?.code ?? cause?.message ?? (err as Error).message);
      throw new TicketSystemError(`cannot reach Jira at ${this.host} (${what}): ${reason}`, { cause: err });
    }
    if (response.status < 200 || response.status > 299) {
      throw new TicketSystemError(`Jira at ${this.host} answered ${what} with ${response.status}${describe(response.status)}`, {
        status: response.status,
        answer: answerOf(text) ?? shortAnswer(text),
        retryAfterMs: parseRetryAfter(response.headers.get('retry-after') ?? undefined),
      });
    }
    let json: unknown;
    try {
      json = text.trim() === '' ? undefined : JSON.parse(text);
    } catch {
      throw new TicketSystemError(`Jira at ${this.host} answered ${what} with a body that is not JSON`, { status: response.status, answer: shortAnswer(text), malformed: true });
    }
    const date = response.headers.get('date');
    return this.#timed({ status: response.status, json, date: date ? new Date(date) : undefined, location: response.headers.get('location') ?? undefined });
  }
}

function describe(status: number): string {
  if (status === 401) return ' (the e-mail and API token were refused)';
  if (status === 403) return ' (forbidden: is the account an agent of this service desk?)';
  if (status === 404) return ' (not found, or not visible to the account)';
  if (status === 429) return ' (rate limited)';
  if (status >= 300 && status <= 399) return ' (a redirect: is the url the Jira site root, with https?)';
  return '';
}

/** Jira's own words from any of its error bodies; undefined for another body (its start is shown instead). */
export function answerOf(text: string): string | undefined {
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (parsed === null || typeof parsed !== 'object') return undefined;
  const words: string[] = [];
  if (Array.isArray(parsed.errorMessages)) words.push(...parsed.errorMessages.map(String));
  if (parsed.errors && typeof parsed.errors === 'object') words.push(...Object.entries(parsed.errors as Record<string, unknown>).map(([k, v]) => `${k}: ${String(v)}`));
  if (typeof parsed.errorMessage === 'string') words.push(parsed.errorMessage);
  if (words.length === 0 && typeof parsed.message === 'string') words.push(parsed.message);
  return words.length === 0 ? undefined : words.join('; ').slice(0, ANSWER_MAX);
}
