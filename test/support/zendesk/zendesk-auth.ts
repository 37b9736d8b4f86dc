/**
 * Who is asking, and how often: API token authentication and the rate
 * limits, as Zendesk's reference describes them.
 *
 * Authentication (https://developer.zendesk.com/api-reference/introduction/security-and-auth/):
 * HTTP Basic with the user name `{email}/token` and an API token as the
 * password. Anything else that names credentials (a wrong token, a password,
 * a Bearer token this account does not know) is refused with 401
 * `{"error": "Couldn't authenticate you"}`; a request without credentials is
 * anonymous (only `/users/me` answers it, with the anonymous user).
 *
 * Rate limits (https://developer.zendesk.com/api-reference/introduction/rate-limits/):
 * an account-wide budget of requests a minute (700 on Enterprise; every
 * answer carries X-Rate-Limit / X-Rate-Limit-Remaining) and the incremental
 * exports' own 10 requests a minute. Past one, 429 with `Retry-After` in
 * seconds. Both are sliding windows of the machine's real time (not the
 * test clock), and a test may change them (`limits.export = { max: 2, windowMs: 3000 }`).
 */
import { rateLimited, unauthenticated } from './zendesk-errors.ts';
import type { ZdUser, ZendeskStore } from './zendesk-store.ts';

/** The user of the request's credentials; undefined for a request without any. Throws the 401 for refused ones. */
export function authenticate(header: string | undefined, store: ZendeskStore): ZdUser | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!match) throw unauthenticated();
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const login = colon < 0 ? decoded : decoded.slice(0, colon);
  const secret = colon < 0 ? '' : decoded.slice(colon + 1);
  if (!login.endsWith('/token') || secret === '') throw unauthenticated();
  const email = login.slice(0, -'/token'.length).toLowerCase();
  for (const user of store.users.values()) {
    if (user.email.toLowerCase() === email && user.apiToken !== undefined && user.apiToken === secret) return user;
  }
  throw unauthenticated();
}

export interface Limit {
  max: number;
  windowMs: number;
}

export interface Limits {
  /** Every request of the account. */
  api: Limit;
  /** The incremental exports (and counted in `api` too). */
  export: Limit;
}

export const DOCUMENTED_LIMITS: Limits = { api: { max: 700, windowMs: 60_000 }, export: { max: 10, windowMs: 60_000 } };

export class RateLimits {
  limits: Limits;
  readonly #taken: Record<keyof Limits, number[]> = { api: [], export: [] };

  constructor(limits: Partial<Limits> = {}) {
    this.limits = { ...DOCUMENTED_LIMITS, ...limits };
  }

  /** Counts a request against `bucket`; throws the 429 (with Retry-After) once its budget is spent. */
  take(bucket: keyof Limits): void {
    const { max, windowMs } = this.limits[bucket];
    const now = Date.now();
    const taken = this.#taken[bucket].filter((at) => at > now - windowMs);
    this.#taken[bucket] = taken;
    if (taken.length >= max) {
      const retryAfter = Math.max(1, Math.ceil((taken[0]! + windowMs - now) / 1000));
      const description = bucket === 'export' ? 'Number of allowed incremental export API requests per minute exceeded' : 'Number of allowed API requests per minute exceeded';
      throw rateLimited(description, retryAfter);
    }
    taken.push(now);
  }

  /** The account-wide headers every answer carries. */
  headers(): Record<string, string> {
    const { max, windowMs } = this.limits.api;
    const remaining = Math.max(0, max - this.#taken.api.filter((at) => at > Date.now() - windowMs).length);
    return { 'x-rate-limit': String(max), 'x-rate-limit-remaining': String(remaining), 'ratelimit-limit': String(max), 'ratelimit-remaining': String(remaining) };
  }
}
