/**
 * How many refused webhooks per connector are recorded: a token bucket of
 * `perMinute` tokens refilled continuously. What is over budget is still
 * logged and answered, only not stored.
 */
export class RejectionBudget {
  readonly #perMinute: number;
  readonly #now: () => number;
  readonly #buckets = new Map<string, { tokens: number; at: number }>();

  constructor(perMinute: number, now: () => number = Date.now) {
    this.#perMinute = perMinute;
    this.#now = now;
  }

  take(key: string): boolean {
    const now = this.#now();
    const bucket = this.#buckets.get(key) ?? { tokens: this.#perMinute, at: now };
    bucket.tokens = Math.min(this.#perMinute, bucket.tokens + ((now - bucket.at) / 60_000) * this.#perMinute);
    bucket.at = now;
    if (this.#buckets.size > 1_000 && !this.#buckets.has(key)) this.#buckets.clear(); // names from URLs: keep bounded
    this.#buckets.set(key, bucket);
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }
}
