/**
 * Slack's Web API rate limits (https://api.slack.com/apis/rate-limits), per
 * method and workspace, as sliding windows of the machine's real time:
 *
 *   Tier 1  1+ a minute     Tier 2  20+ a minute     Tier 3  50+ a minute     Tier 4  100+ a minute
 *   Special: chat.postMessage about one message a second per channel, short bursts allowed
 *
 * each method with the tier its reference page gives (auth.test is
 * "Special" there: taken as Tier 4 here; conversations.history and
 * conversations.replies are Tier 3 for internal apps — the 2025 limits of
 * commercially distributed non-Marketplace apps are not modelled; files.*
 * are Tier 4). chat.postMessage is counted per channel: 5 in any 5 seconds
 * (one a second, a burst of five). Past a limit, Slack's answer: HTTP 429,
 * `Retry-After: <seconds>`, `{"ok": false, "error": "ratelimited"}`. A test
 * may set any method's limit (`limits.set('chat.postMessage', { max: 1, windowMs: 60_000 })`).
 */

export interface Limit {
  max: number;
  windowMs: number;
}

const MINUTE = 60_000;
const TIER: Record<1 | 2 | 3 | 4, Limit> = {
  1: { max: 1, windowMs: MINUTE },
  2: { max: 20, windowMs: MINUTE },
  3: { max: 50, windowMs: MINUTE },
  4: { max: 100, windowMs: MINUTE },
};

export const DOCUMENTED_LIMITS: Readonly<Record<string, Limit>> = {
  'auth.test': TIER[4],
  'users.info': TIER[4],
  'chat.postMessage': { max: 5, windowMs: 5_000 },
  'conversations.history': TIER[3],
  'conversations.replies': TIER[3],
  'files.info': TIER[4],
  'files.getUploadURLExternal': TIER[4],
  'files.completeUploadExternal': TIER[4],
};

/** A request past its method's limit: the seconds to wait. */
export class RateLimited extends Error {
  readonly retryAfterSeconds: number;

  constructor(retryAfterSeconds: number) {
    super('ratelimited');
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

export class RateTiers {
  readonly #limits = new Map<string, Limit>(Object.entries(DOCUMENTED_LIMITS));
  readonly #taken = new Map<string, number[]>();

  /** Sets `method`'s limit (for a test). */
  set(method: string, limit: Limit): void {
    this.#limits.set(method, limit);
    for (const key of this.#taken.keys()) if (key === method || key.startsWith(`${method}@`)) this.#taken.delete(key);
  }

  limitOf(method: string): Limit {
    return this.#limits.get(method) ?? TIER[4];
  }

  /** Counts a call of `method` (for chat.postMessage: in `channel`); throws `RateLimited` past the limit. */
  take(method: string, channel?: string): void {
    const { max, windowMs } = this.limitOf(method);
    const key = method === 'chat.postMessage' && channel ? `${method}@${channel}` : method;
    const now = Date.now();
    const taken = (this.#taken.get(key) ?? []).filter((at) => at > now - windowMs);
    if (taken.length >= max) {
      this.#taken.set(key, taken);
      throw new RateLimited(Math.max(1, Math.ceil((taken[0]! + windowMs - now) / 1000)));
    }
    taken.push(now);
    this.#taken.set(key, taken);
  }
}
