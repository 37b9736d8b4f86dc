/**
 * The Events API's side of the counterpart: Slack POSTing to the app's
 * Request URL (https://api.slack.com/apis/events-api), signed as
 * https://api.slack.com/authentication/verifying-requests-from-slack says.
 *
 *   verify(url)   the url_verification handshake: {token, challenge, type}; the URL is taken only when it
 *                 answers 200 with the challenge (as text, as JSON {"challenge"}, or as a form)
 *   send(event)   an event_callback envelope {token, team_id, api_app_id, event, type, event_id, event_time,
 *                 authorizations, …}, Content-Type application/json, X-Slack-Request-Timestamp and
 *                 X-Slack-Signature (v0=hex HMAC-SHA256 of "v0:<timestamp>:<body>"), signed anew per attempt
 *
 * Retries ("Graceful retries"): an attempt fails when no answer came within
 * 3 seconds (`http_timeout`: Slack does not wait for it), the answer was not
 * 2xx (`http_error`) or no connection was made (`connection_failed`); it is
 * retried up to three times — at once, after a minute, after five minutes
 * (`retryDelaysMs`, shorter in tests) — with the same body and
 * `X-Slack-Retry-Num: <n>` and `X-Slack-Retry-Reason: <reason>`. An answer
 * with `X-Slack-No-Retry: 1` is not retried. Every attempt is recorded.
 */
import { createHmac, randomBytes } from 'node:crypto';

export interface EventAttempt {
  eventId: string;
  retryNum: number;
  /** The answer's status; null when none came in time or at all. */
  status: number | null;
  /** Why it failed: http_timeout, http_error, connection_failed. */
  reason?: string;
  durationMs: number;
  at: number;
}

export interface SenderOptions {
  signingSecret: string;
  teamId: string;
  appId: string;
  botUserId: string;
  /** How long Slack waits for an answer; 0: no answer is ever in time (every attempt is `http_timeout`). */
  timeoutMs?: number;
  retryDelaysMs?: readonly number[];
}

/** The legacy verification token each envelope carries (deprecated by Slack in favour of the signature). */
const VERIFICATION_TOKEN = 'Jhj5dZrVaK7ZwHHjRyZWjbDl';

export class EventSender {
  readonly attempts: EventAttempt[] = [];
  requestUrl: string | undefined;
  timeoutMs: number;
  retryDelaysMs: readonly number[];
  readonly #o: SenderOptions;
  readonly #pending = new Set<Promise<unknown>>();
  readonly #closing = new AbortController();

  constructor(options: SenderOptions) {
    this.#o = options;
    this.timeoutMs = options.timeoutMs ?? 3_000;
    this.retryDelaysMs = options.retryDelaysMs ?? [0, 60_000, 300_000];
  }

  /** The signature headers of `body` at `seconds` (default now), as Slack sends them. */
  signedHeaders(body: string, seconds = Math.floor(Date.now() / 1000), secret = this.#o.signingSecret): Record<string, string> {
    const signature = createHmac('sha256', secret).update(`v0:${seconds}:${body}`).digest('hex');
    return { 'x-slack-request-timestamp': String(seconds), 'x-slack-signature': `v0=${signature}` };
  }

  /** POSTs `body` as Slack does, with `headers` (for tests that sign wrongly); the answer's status and text. */
  async post(url: string, body: string, headers: Record<string, string>): Promise<{ status: number; text: string; headers: Headers }> {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'user-agent': 'Slackbot 1.0 (+https://api.slack.com/robots)', ...headers }, body, redirect: 'manual', signal: this.#closing.signal });
    return { status: res.status, text: await res.text(), headers: res.headers };
  }

  /** The url_verification handshake; the URL becomes the Request URL when it answers with the challenge. */
  async verify(url: string): Promise<boolean> {
    const challenge = randomBytes(24).toString('base64url');
    const body = JSON.stringify({ token: VERIFICATION_TOKEN, challenge, type: 'url_verification' });
    const answer = await this.post(url, body, this.signedHeaders(body));
    const echoed = answer.text === challenge || jsonChallenge(answer.text) === challenge || new URLSearchParams(answer.text).get('challenge') === challenge;
    if (answer.status !== 200 || !echoed) return false;
    this.requestUrl = url;
    return true;
  }

  /** The envelope of `event` as Slack sends it. */
  envelope(event: Record<string, unknown>, eventId = `Ev${randomBytes(5).toString('hex').toUpperCase()}`): Record<string, unknown> {
    return {
      token: VERIFICATION_TOKEN,
      team_id: this.#o.teamId,
      api_app_id: this.#o.appId,
      event: { ...event, event_ts: event.event_ts ?? event.ts },
      type: 'event_callback',
      event_id: eventId,
      event_time: Math.floor(Date.now() / 1000),
      authorizations: [{ enterprise_id: null, team_id: this.#o.teamId, user_id: this.#o.botUserId, is_bot: true, is_enterprise_install: false }],
      is_ext_shared_channel: false,
      event_context: `4-${randomBytes(12).toString('base64url')}`,
    };
  }

  /** Sends `event` to the Request URL, with Slack's retries; resolves every attempt once the last one ended. */
  send(event: Record<string, unknown>): Promise<EventAttempt[]> {
    const url = this.requestUrl;
    if (url === undefined) return Promise.resolve([]);
    const envelope = this.envelope(event);
    const body = JSON.stringify(envelope);
    const run = this.#deliver(url, String(envelope.event_id), body);
    this.#pending.add(run);
    void run.finally(() => this.#pending.delete(run));
    return run;
  }

  /** Stops retrying and aborts what is in flight. */
  async close(): Promise<void> {
    this.#closing.abort();
    await Promise.allSettled([...this.#pending]);
  }

  async #deliver(url: string, eventId: string, body: string): Promise<EventAttempt[]> {
    const made: EventAttempt[] = [];
    for (let retryNum = 0; ; retryNum++) {
      const attempt = await this.#attempt(url, eventId, body, retryNum, made.at(-1)?.reason);
      made.push(attempt);
      this.attempts.push(attempt);
      if (attempt.reason === undefined || attempt.reason === 'no_retry' || retryNum >= this.retryDelaysMs.length || this.#closing.signal.aborted) return made;
      await new Promise((resolve) => setTimeout(resolve, this.retryDelaysMs[retryNum]).unref());
      if (this.#closing.signal.aborted) return made;
    }
  }

  async #attempt(url: string, eventId: string, body: string, retryNum: number, lastReason: string | undefined): Promise<EventAttempt> {
    const at = Date.now();
    const retry: Record<string, string> = retryNum === 0 ? {} : { 'x-slack-retry-num': String(retryNum), 'x-slack-retry-reason': lastReason ?? 'http_error' };
    const sent = this.post(url, body, { ...this.signedHeaders(body), ...retry });
    // Slack does not wait past its timeout: the request goes on, and the retry is sent meanwhile.
    sent.catch(() => undefined);
    const late = this.timeoutMs === 0 ? Promise.resolve('late' as const) : new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), this.timeoutMs).unref());
    const done = (status: number | null, reason?: string): EventAttempt => ({ eventId, retryNum, status, ...(reason ? { reason } : {}), durationMs: Date.now() - at, at });
    try {
      const answer = await Promise.race([late, sent]);
      if (answer === 'late') return done(null, 'http_timeout');
      if (answer.status >= 200 && answer.status < 300) return done(answer.status);
      return done(answer.status, answer.headers.get('x-slack-no-retry') === '1' ? 'no_retry' : 'http_error');
    } catch {
      return done(null, 'connection_failed');
    }
  }
}

function jsonChallenge(text: string): unknown {
  try {
    return (JSON.parse(text) as { challenge?: unknown }).challenge;
  } catch {
    return undefined;
  }
}
