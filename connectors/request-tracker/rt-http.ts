/**
 * Request Tracker's REST2 (`<url>/REST/2.0`) over HTTP (../ticket/ticket-http.ts):
 * `Authorization: token …` or basic auth, RT's `{"message": …}` as its words,
 * and its answers made regular:
 *
 *   400 "Permission Denied" (a refused correspond or comment)   → 403
 *   400 "Message could not be recorded" (no such ticket)         → 404
 *   500 on a transaction or attachment that does not exist        → kept (the caller knows what it asked)
 *
 * Every answer's `Date` header is RT's clock, the only one it tells: the
 * latest is kept, with the gateway's monotonic time it came at, so that
 * `clockNow()` estimates RT's clock without trusting the gateway's own.
 */
import { TicketHttp, type Query, type TicketResponse } from '../ticket/ticket-http.ts';
import { TicketSystemError } from '../ticket/ticket-adapter.ts';

const ANSWER_MAX = 300;

export interface RtAuth {
  token?: string | undefined;
  user?: string | undefined;
  password?: string | undefined;
}

export class RtHttp extends TicketHttp {
  /** RT's clock from the latest `Date` header, and `performance.now()` when it came. */
  #clock: { rt: number; at: number } | undefined;

  constructor(url: string, auth: RtAuth, timeoutMs: number) {
    const authorization = auth.token !== undefined ? `token ${auth.token}` : `Basic ${Buffer.from(`${auth.user}:${auth.password}`).toString('base64')}`;
    super({ system: 'RT', url: `${url}/REST/2.0`, headers: { authorization }, credential: 'the RT credentials', timeoutMs, answerOf, hint: describe });
  }

  override async get(path: string, query: Query, signal: AbortSignal): Promise<TicketResponse> {
    return this.#timed(() => super.get(path, query, signal));
  }

  async post(path: string, json: unknown, signal: AbortSignal): Promise<TicketResponse> {
    return this.#timed(() => this.send('POST', path, { json }, signal));
  }

  async put(path: string, json: unknown, signal: AbortSignal): Promise<TicketResponse> {
    return this.#timed(() => this.send('PUT', path, { json }, signal));
  }

  /**
   * RT's clock now, estimated from its latest `Date` header (whole seconds,
   * so up to a second behind) plus the time passed since; undefined before
   * the first answer.
   */
  clockNow(): number | undefined {
    return this.#clock === undefined ? undefined : this.#clock.rt + (performance.now() - this.#clock.at);
  }

  async #timed<T extends TicketResponse>(call: () => Promise<T>): Promise<T> {
    try {
      const response = await call();
      if (response.date !== undefined) this.#clock = { rt: response.date.getTime(), at: performance.now() };
      return response;
    } catch (err) {
      throw regular(err);
    }
  }
}

/** RT's 400s for a refusal or a missing ticket as the statuses they mean. */
function regular(err: unknown): unknown {
  if (!(err instanceof TicketSystemError) || err.status !== 400) return err;
  if (/permission denied/i.test(err.answer ?? '')) return new TicketSystemError(err.message.replace(/ with 400\b/, ' with 400 (Permission Denied: the gateway user lacks the right)'), { status: 403, answer: err.answer, cause: err });
  if (/could not be recorded/i.test(err.answer ?? '')) return new TicketSystemError(err.message, { status: 404, answer: err.answer, cause: err });
  return err;
}

function describe(status: number): string {
  if (status === 401) return ' (the token, or user and password, was refused)';
  if (status === 403) return ' (forbidden: does the gateway user have the right on this queue?)';
  if (status === 404) return ' (not found, or not visible to the gateway user)';
  if (status >= 300 && status <= 399) return ' (a redirect: is the url the RT root, with the right scheme?)';
  return '';
}

/** RT's `{"message": "…"}`, or the messages of a PUT's array; undefined for another body (its start is shown instead). */
function answerOf(text: string): string | undefined {
  try {
    const parsed = JSON.parse(text) as unknown;
    if (Array.isArray(parsed)) return parsed.map(String).join('; ').slice(0, ANSWER_MAX);
    const message = (parsed as { message?: unknown } | null)?.message;
    if (typeof message === 'string') return message.replace(/ at \/\S+ line \d+\.?\s*$/, '').trim().slice(0, ANSWER_MAX);
  } catch {
    // not JSON
  }
  return undefined;
}
