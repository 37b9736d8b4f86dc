/**
 * Zammad's REST API (`<url>/api/v1`) over HTTP (../ticket/ticket-http.ts):
 * the access token as `Authorization: Token token=…`, Zammad's
 * `{"error": …, "error_human": …}` as its words (the human one first), and
 * its clock: every answer's `Date` header is Zammad's time, the only one it
 * tells; the latest is kept with the gateway's monotonic time it came at, so
 * `clockNow()` estimates Zammad's clock without trusting the gateway's own.
 */
import { TicketHttp, type Query, type TicketResponse } from '../ticket/ticket-http.ts';

const ANSWER_MAX = 300;

export class ZammadHttp extends TicketHttp {
  /** Zammad's clock from the latest `Date` header, and `performance.now()` when it came. */
  #clock: { zammad: number; at: number } | undefined;

  constructor(url: string, token: string, timeoutMs: number) {
    super({ system: 'Zammad', url: `${url}/api/v1`, headers: { authorization: `Token token=${token}` }, credential: 'the Zammad token', timeoutMs, answerOf, hint: describe });
  }

  override async get(path: string, query: Query, signal: AbortSignal): Promise<TicketResponse> {
    return this.#timed(await super.get(path, query, signal));
  }

  async post(path: string, json: unknown, signal: AbortSignal): Promise<TicketResponse> {
    return this.#timed(await this.send('POST', path, { json }, signal));
  }

  /** Zammad's clock now (its latest `Date`, whole seconds, so up to a second behind, plus the time since); undefined before any answer. */
  clockNow(): number | undefined {
    return this.#clock === undefined ? undefined : this.#clock.zammad + (performance.now() - this.#clock.at);
  }

  #timed(response: TicketResponse): TicketResponse {
    if (response.date !== undefined) this.#clock = { zammad: response.date.getTime(), at: performance.now() };
    return response;
  }
}

function describe(status: number): string {
  if (status === 401) return ' (the token was refused)';
  if (status === 403) return ' (forbidden: is token access enabled, and may the gateway user do that in the group?)';
  if (status === 404) return ' (not found, or not visible to the gateway user)';
  if (status === 413) return ' (the request was too large for Zammad or its web server)';
  if (status === 422) return ' (refused as invalid)';
  if (status >= 300 && status <= 399) return ' (a redirect: is the url the Zammad root, with the right scheme?)';
  return '';
}

/** Zammad's `{"error_human": …}` or `{"error": …}`; undefined for another body (its start is shown instead). */
function answerOf(text: string): string | undefined {
  try {
    const parsed = JSON.parse(text) as { error?: unknown; error_human?: unknown } | null;
    const words = parsed?.error_human ?? parsed?.error;
    if (typeof words === 'string' && words.trim() !== '') return words.trim().slice(0, ANSWER_MAX);
  } catch {
    // not JSON
  }
  return undefined;
}
