/**
 * Zendesk's Support API v2 over HTTP (../ticket/ticket-http.ts): Basic auth as
 * `{email}/token:{api_token}` (never in a URL, only to the configured
 * account), Zendesk's error bodies as its words —
 *
 *   {"error": "Couldn't authenticate you"}
 *   {"error": "RecordNotFound", "description": "Not found"}
 *   {"error": "RecordInvalid", "description": "Record validation errors", "details": {"status": [{"description": "…"}]}}
 *   {"error": {"title": "Forbidden", "message": "You do not have access to this page…"}}
 *
 * — and Zendesk's clock: every answer's `Date` header is kept with the
 * gateway's monotonic time it came at, so `clockNow()` estimates Zendesk's
 * clock without trusting the gateway's own.
 */
import { TicketHttp, type RequestBody, type TicketResponse } from '../ticket/ticket-http.ts';

const ANSWER_MAX = 300;

export class ZendeskHttp extends TicketHttp {
  /** Zendesk's clock from the latest `Date` header, and `performance.now()` when it came. */
  #clock: { zendesk: number; at: number } | undefined;

  constructor(root: string, credentials: { email: string; api_token: string }, timeoutMs: number) {
    const authorization = `Basic ${Buffer.from(`${credentials.email}/token:${credentials.api_token}`).toString('base64')}`;
    super({ system: 'Zendesk', url: root, headers: { authorization }, credential: 'the Zendesk API token', timeoutMs, answerOf: zendeskAnswer, hint: statusHint });
  }

  override async send(method: string, path: string, body: RequestBody, signal: AbortSignal): Promise<TicketResponse> {
    const response = await super.send(method, path, body, signal);
    if (response.date !== undefined) this.#clock = { zendesk: response.date.getTime(), at: performance.now() };
    return response;
  }

  async put(path: string, json: unknown, signal: AbortSignal): Promise<TicketResponse> {
    return this.send('PUT', path, { json }, signal);
  }

  /** Zendesk's clock now, from its latest `Date` header (whole seconds) plus the time passed since; undefined before the first answer. */
  clockNow(): number | undefined {
    return this.#clock === undefined ? undefined : this.#clock.zendesk + (performance.now() - this.#clock.at);
  }
}

export function statusHint(status: number): string {
  if (status === 401) return ' (the email and api_token were refused: is the token active, and the address that of its user?)';
  if (status === 403) return ' (forbidden: the gateway’s user lacks the role for this; it must be an admin)';
  if (status === 404) return ' (not found, or not visible to the gateway’s user)';
  if (status === 422) return ' (refused as invalid)';
  if (status === 429) return ' (rate limited: waiting as its Retry-After asks)';
  if (status >= 300 && status <= 399) return ' (a redirect: is the url the account’s address, with https?)';
  return '';
}

/** Zendesk's `error`, `description` and `details` in a few words; undefined for another body (its start is shown instead). */
export function zendeskAnswer(text: string): string | undefined {
  let parsed: { error?: unknown; description?: unknown; details?: unknown };
  try {
    parsed = JSON.parse(text) as typeof parsed;
  } catch {
    return undefined;
  }
  if (parsed === null || typeof parsed !== 'object') return undefined;
  const words: string[] = [];
  const error = parsed.error as string | { title?: unknown; message?: unknown } | undefined;
  if (typeof error === 'string') words.push(error);
  else if (error && typeof error === 'object') words.push(...[error.title, error.message].filter((w): w is string => typeof w === 'string'));
  if (typeof parsed.description === 'string') words.push(parsed.description);
  if (parsed.details && typeof parsed.details === 'object') {
    for (const [field, list] of Object.entries(parsed.details as Record<string, unknown>)) {
      for (const item of Array.isArray(list) ? list : []) {
        const description = (item as { description?: unknown } | null)?.description;
        if (typeof description === 'string') words.push(`${field}: ${description}`);
      }
    }
  }
  return words.length === 0 ? undefined : words.join(' — ').slice(0, ANSWER_MAX);
}
