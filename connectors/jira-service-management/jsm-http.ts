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
 * and the one multipart request the adapter makes: a file for a temporary
 * attachment (`attachTemporaryFile`), with the headers its reference names
 * (`X-Atlassian-Token: no-check` against Jira's XSRF check, and
 * `X-ExperimentalApi: opt-in` as its example sends; every request carries
 * the latter, for the experimental list of a comment's files).
 */
import { TicketHttp, type RequestBody, type TicketResponse } from '../ticket/ticket-http.ts';

const ANSWER_MAX = 300;

export class JsmHttp extends TicketHttp {
  /** Jira's clock from the latest `Date` header, and `performance.now()` when it came. */
  #clock: { jira: number; at: number } | undefined;

  constructor(url: string, auth: { email: string; apiToken: string }, timeoutMs: number) {
    const authorization = `Basic ${Buffer.from(`${auth.email}:${auth.apiToken}`).toString('base64')}`;
    // Every request opts in to the experimental endpoints (a comment's files, the temporary file's example): harmless elsewhere.
    super({ system: 'Jira', url, headers: { authorization, 'x-experimentalapi': 'opt-in' }, credential: 'the API token', timeoutMs, answerOf, hint: describe });
  }

  override async send(method: string, path: string, body: RequestBody, signal: AbortSignal): Promise<TicketResponse> {
    const response = await super.send(method, path, body, signal);
    if (response.date !== undefined) this.#clock = { jira: response.date.getTime(), at: performance.now() };
    return response;
  }

  async post(path: string, json: unknown, signal: AbortSignal): Promise<TicketResponse> {
    return this.send('POST', path, { json }, signal);
  }

  /** Jira's clock now, estimated from its latest `Date` header (whole seconds) and the time since; undefined before one came. */
  clockNow(): number | undefined {
    return this.#clock === undefined ? undefined : this.#clock.jira + (performance.now() - this.#clock.at);
  }

  /** One file as the multipart field `file` (the only name Jira takes), answered with JSON. */
  async postFile(path: string, file: { filename: string; contentType: string; content: Buffer }, signal: AbortSignal): Promise<TicketResponse> {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(file.content)], { type: file.contentType }), file.filename);
    return this.send('POST', path, { form, headers: { 'x-atlassian-token': 'no-check' } }, signal);
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
