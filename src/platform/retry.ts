/**
 * Retry as a wrapper composed around one attempt of a request, not a flag
 * inside the transport: `withRetry(attempt, policy, retryAfterOf)` calls
 * `attempt` until it succeeds, the error is not retryable, or the attempts are
 * spent, and then throws the last error unchanged (so it still carries the
 * platform's last status and body).
 *
 * undici's own `interceptors.retry` was evaluated and not used: by default its
 * final RequestRetryError keeps the status and headers but drops the body (the
 * platform's `detail`); with `throwOnError: false` it keeps the body, but a
 * body that fails after a 2xx status is resumed with a `Range` header, which
 * re-sends a POST; it has no jitter unless its policy is replaced, and the
 * attempts are invisible to the caller, so one log line per attempt is not
 * possible. What remains is this loop.
 */
export interface RetryPolicy {
  /** Total tries, the first included; 1 disables retry. */
  attempts: number;
  /** Base of the exponential backoff, in ms. */
  baseMs: number;
  /** Cap of any single wait, backoff and Retry-After alike, in ms. */
  maxMs: number;
}

export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
  attempts: 3,
  baseMs: 250,
  maxMs: 10_000,
});

/** How the caller classifies a failure; `retryAfterMs` is the server's wish, if any. */
export type RetryVerdict = { retry: false } | { retry: true; retryAfterMs?: number | undefined };

export interface RetryOptions {
  policy: RetryPolicy;
  classify: (err: unknown) => RetryVerdict;
  /** Aborting stops waiting between attempts; the abort reason is thrown. */
  signal?: AbortSignal | undefined;
  /** Source of randomness in [0, 1); injectable so tests can pin the jitter. */
  random?: () => number;
}

/**
 * The wait before attempt `attempt + 1` after attempt `attempt` (1-based)
 * failed: the server's Retry-After when given, else exponential backoff with
 * full jitter, uniform in [0, min(maxMs, baseMs * 2^(attempt-1))]. Capped by
 * maxMs either way.
 */
export function retryDelayMs(
  attempt: number,
  policy: RetryPolicy,
  retryAfterMs?: number,
  random: () => number = Math.random,
): number {
  if (retryAfterMs !== undefined) return Math.min(Math.max(0, retryAfterMs), policy.maxMs);
  const ceiling = Math.min(policy.maxMs, policy.baseMs * 2 ** (attempt - 1));
  return Math.floor(random() * ceiling);
}

/**
 * A `Retry-After` header value in ms: delta-seconds or an HTTP-date (RFC 9110
 * §10.2.3). Undefined when absent or unparseable; 0 for a date in the past.
 */
export function parseRetryAfter(value: string | string[] | undefined, now: number = Date.now()): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined) return undefined;
  const text = raw.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Runs `attempt(n)` for n = 1, 2, … until success or a final failure. */
export async function withRetry<T>(attempt: (n: number) => Promise<T>, options: RetryOptions): Promise<T> {
  const { policy, classify, signal } = options;
  for (let n = 1; ; n++) {
    try {
      return await attempt(n);
    } catch (err) {
      const verdict = classify(err);
      if (!verdict.retry || n >= policy.attempts || signal?.aborted) throw err;
      await sleep(retryDelayMs(n, policy, verdict.retryAfterMs, options.random), signal);
    }
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
