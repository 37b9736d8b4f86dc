/**
 * Who may call the counterpart, and how often.
 *
 * Auth: HTTP Basic with an account's e-mail and API token (Jira Cloud's
 * "basic auth for REST APIs"). Anything else is refused as Atlassian's edge
 * refuses it: 401 with `{"message": "Client must be authenticated to access
 * this resource.", "status-code": 401}`.
 *
 * Rate limits (https://developer.atlassian.com/cloud/jira/platform/rate-limiting/):
 * Jira publishes no numbers ("the computation logic is evolving"), so the
 * limit is set per account by the test — `requests` per `windowMs`, counted
 * from the window's first request. Past it: 429 with `Retry-After` (whole
 * seconds until the window ends), `X-RateLimit-Limit`, `X-RateLimit-Remaining:
 * 0`, `X-RateLimit-Reset` (ISO 8601 to the minute, as the page shows it) and
 * `RateLimit-Reason: jira-quota-based`. "If you reissue the request before the
 * retry period expires, the request will fail and return the same or longer
 * Retry-After period": such a request is answered 429 again and counted in
 * `early`. The page documents no body; an `ErrorCollection` is sent.
 * `throttleNow` stands for Jira's cost-based limits, whose budget no client
 * can count: the account's next request is refused with the Retry-After
 * given, as are any before it passed.
 */
import type { JsmStore, JsmUser } from './jsm-store.ts';

export interface Refusal {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

export interface RateLimit {
  requests: number;
  windowMs: number;
}

const GRACE_MS = 5;

export const UNAUTHENTICATED: Refusal = {
  status: 401,
  headers: {},
  body: { message: 'Client must be authenticated to access this resource.', 'status-code': 401 },
};

export class JsmGate {
  readonly #store: JsmStore;
  readonly #limits = new Map<string, RateLimit>();
  readonly #windows = new Map<string, { start: number; count: number; blockedUntil: number }>();
  readonly #pending = new Map<string, number>();
  /** What the limits did: requests answered 429, and those of them sent before an earlier Retry-After had passed. */
  readonly stats = { limited: 0, early: 0 };

  constructor(store: JsmStore) {
    this.#store = store;
  }

  /** Limits the account (none: unlimited). */
  limit(accountId: string, limit: RateLimit | undefined): void {
    if (limit === undefined) this.#limits.delete(accountId);
    else this.#limits.set(accountId, limit);
    this.#windows.delete(accountId);
  }

  /** The account of an `Authorization: Basic …` header whose e-mail and token match; undefined otherwise. */
  authenticate(header: string | undefined): JsmUser | undefined {
    const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
    if (!m) return undefined;
    const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return undefined;
    const [email, token] = [decoded.slice(0, colon), decoded.slice(colon + 1)];
    return [...this.#store.users.values()].find((u) => u.email.toLowerCase() === email.toLowerCase() && u.apiToken === token);
  }

  /**
   * Jira decides the account is over its budget now: its next request (and
   * any before `seconds` passed) is refused with `Retry-After: seconds`.
   */
  throttleNow(accountId: string, seconds: number): void {
    this.#pending.set(accountId, seconds);
  }

  /** Undefined when the account may make this request now; the 429 otherwise. */
  admit(user: JsmUser, now = Date.now()): Refusal | undefined {
    const id = user.accountId;
    const limit = this.#limits.get(id);
    let w = this.#windows.get(id);
    // A few milliseconds of grace: timers and clocks of the client may differ by that much.
    if (w !== undefined && w.blockedUntil - GRACE_MS > now) {
      this.stats.early += 1;
      return this.#refusal(limit, Math.ceil((w.blockedUntil - now) / 1000), now);
    }
    const pending = this.#pending.get(id);
    if (pending !== undefined) {
      this.#pending.delete(id);
      this.#windows.set(id, { start: now, count: 0, blockedUntil: now + pending * 1000 });
      return this.#refusal(limit, pending, now);
    }
    if (limit === undefined) return undefined;
    if (w === undefined || w.blockedUntil > 0 || now - w.start >= limit.windowMs) {
      w = { start: now, count: 0, blockedUntil: 0 };
      this.#windows.set(id, w);
    }
    w.count += 1;
    if (w.count <= limit.requests) return undefined;
    // Blocked until the window ends, rounded up to the whole seconds Retry-After says.
    const seconds = Math.max(1, Math.ceil((w.start + limit.windowMs - now) / 1000));
    w.blockedUntil = now + seconds * 1000;
    return this.#refusal(limit, seconds, now);
  }

  #refusal(limit: RateLimit | undefined, seconds: number, now: number): Refusal {
    this.stats.limited += 1;
    return {
      status: 429,
      headers: {
        'retry-after': String(seconds),
        'x-ratelimit-limit': String(limit?.requests ?? 0),
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': new Date(now + seconds * 1000).toISOString().slice(0, 16) + 'Z',
        'ratelimit-reason': 'jira-quota-based',
      },
      body: { errorMessages: ['Rate limit exceeded.'], errors: {} },
    };
  }
}
