/**
 * Who calls the Zammad counterpart, and how often it may, after
 *
 *   https://docs.zammad.org/en/latest/api/intro.html#authentication
 *       (`Authorization: Token token={your_token}`; basic auth; OAuth2 bearer)
 *   https://github.com/zammad/zammad/blob/develop/app/controllers/application_controller/authenticates.rb
 *       (no credentials: 403 "Authentication required"; an unknown token: 401 "Can't find User for Token";
 *        token access switched off: 403 "API token access disabled!"; an inactive user: 401)
 *   https://github.com/zammad/zammad/blob/develop/config/initializers/rack_attack.rb
 *
 * Rate limits: Zammad documents none for its REST API; its only throttles
 * (Rack::Attack) guard the password reset and the web form. A throttle in
 * front of the API (Rack::Attack's own, or a proxy's) answers 429 "Retry
 * later" with `Retry-After`: the seconds to the end of the current period
 * (periods aligned to the epoch, counted per credential). `throttle` sets
 * one (off by default, as in Zammad); `throttleNext` makes the next requests
 * throttled whatever the count, so a test can hit it at once.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { authenticationRequired, badBasicAuth, forbidden, throttled, unknownToken } from './zammad-errors.ts';
import type { ZUser } from './zammad-model.ts';
import type { ZammadStore } from './zammad-store.ts';

export interface Throttle {
  limit: number;
  periodMs: number;
}

export class ZammadGate {
  /** A throttle per credential; undefined: none (Zammad's default for the REST API). */
  throttle: Throttle | undefined;
  /** Whether token access is on (Settings → System → API → "API Token Access"). */
  tokenAccess = true;
  /** Requests answered 429 so far. */
  throttledCount = 0;
  #forced: { count: number; retryAfterSeconds: number } | undefined;
  readonly #windows = new Map<string, { start: number; count: number }>();
  readonly #store: ZammadStore;

  constructor(store: ZammadStore) {
    this.#store = store;
  }

  /** The next `count` requests are answered 429 with `Retry-After: retryAfterSeconds`. */
  throttleNext(count: number, retryAfterSeconds: number): void {
    this.#forced = { count, retryAfterSeconds };
  }

  /** The user of the request's credentials; throws Zammad's refusal. */
  authenticate(headers: IncomingHttpHeaders): ZUser {
    const header = headers.authorization ?? '';
    const token = /^(?:Token|Bearer)\s+(?:token=)?"?([^",\s]+)"?/i.exec(header)?.[1];
    if (/^Basic\s/i.test(header)) throw badBasicAuth();
    if (token === undefined) throw authenticationRequired();
    if (!this.tokenAccess) throw forbidden('API token access disabled!');
    const userId = this.#store.tokens.get(token);
    if (userId === undefined) throw unknownToken();
    const user = this.#store.user(userId);
    if (!user.active) throw unknownToken();
    return user;
  }

  /** Counts a request of `who`; throws 429 when its period's budget is spent. */
  count(who: string): void {
    if (this.#forced && this.#forced.count > 0) {
      this.#forced.count -= 1;
      this.throttledCount += 1;
      throw throttled(this.#forced.retryAfterSeconds);
    }
    if (this.throttle === undefined) return;
    const { limit, periodMs } = this.throttle;
    const now = Date.now();
    const start = Math.floor(now / periodMs) * periodMs;
    const window = this.#windows.get(who);
    const current = window && window.start === start ? window : { start, count: 0 };
    current.count += 1;
    this.#windows.set(who, current);
    if (current.count > limit) {
      this.throttledCount += 1;
      throw throttled(Math.max(1, Math.ceil((start + periodMs - now) / 1000)));
    }
  }
}
