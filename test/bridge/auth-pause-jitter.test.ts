/**
 * The re-checks of a paused connector back off by doubling and are stretched
 * at random by up to a quarter, so replicas paused by the same rotated token
 * do not all ask the platform at once — and never sooner than the doubling.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { AuthPause } from '../../src/bridge/auth-pause.ts';
import { createLogger } from '../../src/log/logger.ts';
import { PlatformHttpError } from '../../src/platform/errors.ts';
import { capture } from '../support/log-capture.ts';

const refusal = () => new PlatformHttpError({ method: 'POST', path: '/api/v5/x', attempts: 1, status: 401, detail: 'token revoked', fieldErrors: {}, body: undefined, retryAfterMs: undefined });

describe('auth pause re-check backoff', () => {
  it('doubles from the first wait and adds up to 25 % at random, never less', async () => {
    const { lines, stream } = capture();
    const firsts: number[] = [];
    for (let i = 0; i < 40; i++) {
      const pause = new AuthPause({ probe: async () => Promise.reject(refusal()), onResume: () => {}, logger: createLogger('info', stream), firstMs: 1_000, maxMs: 8_000 });
      onTestFinished(() => pause.close());
      pause.pause(`c${i}`, refusal());
    }
    for (const line of lines) {
      const entry = JSON.parse(line) as { event?: string; recheck_in_ms?: number };
      if (entry.event === 'connector_paused') firsts.push(entry.recheck_in_ms!);
    }
    expect(firsts).toHaveLength(40);
    expect(Math.min(...firsts)).toBeGreaterThanOrEqual(1_000);
    expect(Math.max(...firsts)).toBeLessThanOrEqual(1_250);
    expect(new Set(firsts).size).toBeGreaterThan(10); // spread, not one instant
  });
});
