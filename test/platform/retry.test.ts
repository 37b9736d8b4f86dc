/** The retry wrapper's arithmetic and loop, without a network. */
import { describe, expect, it } from 'vitest';
import { parseRetryAfter, retryDelayMs, withRetry, type RetryVerdict } from '../../src/platform/retry.ts';

const POLICY = { attempts: 4, baseMs: 100, maxMs: 1_000 };
const NOW = Date.UTC(2025, 0, 2, 3, 4, 5);

describe('retryDelayMs', () => {
  it('is full jitter: uniform between 0 and baseMs * 2^(attempt-1)', () => {
    expect(retryDelayMs(1, POLICY, undefined, () => 0)).toBe(0);
    expect(retryDelayMs(1, POLICY, undefined, () => 0.5)).toBe(50);
    expect(retryDelayMs(2, POLICY, undefined, () => 0.5)).toBe(100);
    expect(retryDelayMs(3, POLICY, undefined, () => 0.999)).toBe(399);
  });

  it('never exceeds maxMs, however many attempts', () => {
    expect(retryDelayMs(30, POLICY, undefined, () => 0.999)).toBe(999);
  });

  it('takes Retry-After as given, capped by maxMs, with no jitter', () => {
    expect(retryDelayMs(1, POLICY, 300, () => 0)).toBe(300);
    expect(retryDelayMs(1, POLICY, 60_000, () => 0)).toBe(1_000);
    expect(retryDelayMs(1, POLICY, 0, () => 0.9)).toBe(0);
  });
});

describe('parseRetryAfter', () => {
  it('reads delta-seconds', () => {
    expect(parseRetryAfter('1', NOW)).toBe(1_000);
    expect(parseRetryAfter(' 120 ', NOW)).toBe(120_000);
    expect(parseRetryAfter('0', NOW)).toBe(0);
  });

  it('reads an HTTP-date relative to now, and a past date as 0', () => {
    expect(parseRetryAfter(new Date(NOW + 30_000).toUTCString(), NOW)).toBe(30_000);
    expect(parseRetryAfter(new Date(NOW - 30_000).toUTCString(), NOW)).toBe(0);
  });

  it('ignores what is absent or not a valid value', () => {
    expect(parseRetryAfter(undefined, NOW)).toBeUndefined();
    expect(parseRetryAfter('', NOW)).toBeUndefined();
    expect(parseRetryAfter('-5', NOW)).toBeUndefined();
    expect(parseRetryAfter('1.5', NOW)).toBeUndefined();
    expect(parseRetryAfter('soon', NOW)).toBeUndefined();
  });

  it('takes the first of repeated headers', () => {
    expect(parseRetryAfter(['2', '9'], NOW)).toBe(2_000);
  });
});

describe('withRetry', () => {
  const fast = { attempts: 3, baseMs: 1, maxMs: 5 };
  const always: (err: unknown) => RetryVerdict = () => ({ retry: true });

  it('returns the first success and stops', async () => {
    let calls = 0;
    const result = await withRetry(async (n) => {
      calls++;
      if (n < 2) throw new Error(`fail ${n}`);
      return n;
    }, { policy: fast, classify: always });
    expect(result).toBe(2);
    expect(calls).toBe(2);
  });

  it('throws the last error unchanged once the attempts are spent', async () => {
    const seen: number[] = [];
    const err = await withRetry(async (n) => {
      seen.push(n);
      throw new Error(`fail ${n}`);
    }, { policy: fast, classify: always }).catch((e: unknown) => e);
    expect((err as Error).message).toBe('fail 3');
    expect(seen).toEqual([1, 2, 3]);
  });

  it('does not retry what classify refuses', async () => {
    let calls = 0;
    const err = await withRetry(async () => {
      calls++;
      throw new Error('final');
    }, { policy: fast, classify: () => ({ retry: false }) }).catch((e: unknown) => e);
    expect((err as Error).message).toBe('final');
    expect(calls).toBe(1);
  });

  it('an abort during the wait ends it with the abort reason', async () => {
    const controller = new AbortController();
    const reason = new Error('shutting down');
    let calls = 0;
    const pending = withRetry(async () => {
      calls++;
      setTimeout(() => controller.abort(reason), 5);
      throw new Error('busy');
    }, { policy: { attempts: 3, baseMs: 1, maxMs: 60_000 }, classify: () => ({ retry: true, retryAfterMs: 60_000 }), signal: controller.signal });
    await expect(pending).rejects.toBe(reason);
    expect(calls).toBe(1);
  });
});
