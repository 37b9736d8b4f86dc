/**
 * The `jobs` settings: the retry budget is a duration (`retry_for: 3d`), the
 * backoff bounds are durations too, the attempt counts are safety caps, and
 * an old file with only `max_attempts` still loads — and `serve` says when
 * such a cap ends retries long before `retry_for`.
 */
import { describe, expect, it } from 'vitest';
import { retryPolicy } from '../../src/cli/retry-policy.ts';
import { formatProblem } from '../../src/config/errors.ts';
import { Settings } from '../../src/config/schema.ts';
import { DEFAULT_BACKOFF, earliestRetryMs } from '../../src/jobs/backoff.ts';
import { DEFAULT_RETRY_BUDGET } from '../../src/jobs/retry-budget.ts';
import { startTestGateway } from '../support/gateway.ts';

const jobsOf = (jobs: Record<string, unknown>) => Settings.parse({ jobs }).jobs;

/** Each problem as `config check` prints it. */
const problemsOf = (jobs: Record<string, unknown>): string[] =>
  (Settings.safeParse({ jobs }).error?.issues ?? []).map((i) => formatProblem({ path: i.path.map(String).join('.'), message: i.message }));

describe('jobs settings', () => {
  // Guards against a default budget of 8 tries (~2 minutes of an outage) instead of days.
  it('defaults to 3 days of retries, 1 s doubling to 15 min, caps that do not bind before the deadline', () => {
    const policy = retryPolicy(Settings.parse({}).jobs);
    expect(policy).toEqual({ delivery: DEFAULT_RETRY_BUDGET, platform: DEFAULT_RETRY_BUDGET, backoff: DEFAULT_BACKOFF });
    expect(DEFAULT_RETRY_BUDGET).toEqual({ retryForMs: 3 * 24 * 3_600_000, maxAttempts: 1_000 });
  });

  it('reads durations with their unit', () => {
    expect(jobsOf({ retry_for: '36h', backoff_first: '250ms', backoff_max: '5m' })).toMatchObject({ retry_for: 36 * 3_600_000, backoff_first: 250, backoff_max: 300_000 });
    expect(retryPolicy(jobsOf({ retry_for: '2d', max_attempts: 50, platform_max_attempts: 70 }))).toMatchObject({
      delivery: { maxAttempts: 50, retryForMs: 2 * 86_400_000 },
      platform: { maxAttempts: 70, retryForMs: 2 * 86_400_000 },
    });
  });

  it('still loads an old file whose budget was a count: max_attempts and platform_max_attempts are caps', () => {
    expect(jobsOf({ max_attempts: 8, platform_max_attempts: 25 })).toMatchObject({ max_attempts: 8, platform_max_attempts: 25, retry_for: 3 * 86_400_000 });
  });

  // Guards against an upgrade that silently keeps the 2-minute budget of a settings file that still says max_attempts: 8.
  it('serve warns when an attempt cap ends retries before retry_for, naming the setting; the defaults do not', async () => {
    const warnings = async (jobs: Record<string, unknown>) => {
      const logLines: string[] = [];
      const tg = await startTestGateway({ connectors: [], settings: { jobs }, logLines });
      await tg.gateway.close();
      return logLines.map((l) => JSON.parse(l) as { event?: string; level: number; msg: string }).filter((l) => l.event === 'attempt_cap_binds');
    };
    const old = await warnings({ max_attempts: 8, platform_max_attempts: 25 });
    expect(old.map((l) => [l.level, l.msg])).toEqual([
      [40, 'jobs.max_attempts 8 ends retries within 2.1 min, before jobs.retry_for (3 d): raise it or remove it (default 1000)'],
      [40, 'jobs.platform_max_attempts 25 ends retries within 3.8 h, before jobs.retry_for (3 d): raise it or remove it (default 1000)'],
    ]);
    expect(await warnings({})).toEqual([]);
    expect(await warnings({ max_attempts: 8, retry_for: '90s' })).toEqual([]);
    // Only a short backoff set: the unset caps grow to last retry_for; nothing to warn about.
    expect(await warnings({ backoff_max: '1s' })).toEqual([]);
  });

  it('an unset cap lasts retry_for however short the backoff: the deadline, not the cap, ends retries', () => {
    for (const jobs of [{ backoff_max: '1s' }, { backoff_first: '10ms', backoff_max: '40ms', retry_for: '1h' }, {}]) {
      const policy = retryPolicy(jobsOf(jobs));
      expect(policy.delivery.maxAttempts).toBe(policy.platform.maxAttempts);
      expect(policy.delivery.maxAttempts).toBeGreaterThanOrEqual(DEFAULT_RETRY_BUDGET.maxAttempts);
      // Every wait at its shortest (half its ceiling): the cap's tries still outlast the deadline.
      let shortest = 0;
      for (let attempt = 1; attempt < policy.delivery.maxAttempts && shortest < policy.delivery.retryForMs; attempt++) shortest += earliestRetryMs(attempt, policy.backoff);
      expect(shortest, JSON.stringify(jobs)).toBeGreaterThanOrEqual(policy.delivery.retryForMs);
    }
    // 1 s doubling capped at 1 s: every wait at least 0.5 s, so 3 days take 518,400 waits between 518,401 tries.
    expect(retryPolicy(jobsOf({ backoff_max: '1s' })).delivery.maxAttempts).toBe((3 * 86_400_000) / 500 + 1);
    expect(retryPolicy(jobsOf({ backoff_max: '1s', max_attempts: 20 })).delivery.maxAttempts).toBe(20);
  });

  it('names the key and the fix of every bad value', () => {
    expect(problemsOf({ retry_for: 'soon' })).toEqual(['jobs.retry_for: expected a duration such as 90s, 15m, 2h or 3d, got "soon"']);
    expect(problemsOf({ retry_for: 3600 })).toEqual(['jobs.retry_for: expected a duration such as 90s, 15m, 2h or 3d']);
    expect(problemsOf({ retry_for: '3600' })).toEqual(['jobs.retry_for: expected a duration such as 90s, 15m, 2h or 3d, got "3600"']);
    expect(problemsOf({ retry_for: '200d' })).toEqual(['jobs.retry_for: must be from 1s to 90d, got "200d"']);
    expect(problemsOf({ backoff_first: '1h', backoff_max: '10m' })).toEqual(['jobs.backoff_first: must not be longer than backoff_max']);
    expect(problemsOf({ max_attempts: 0 })).toEqual([expect.stringMatching(/^jobs\.max_attempts: /)]);
  });

  it('reads a connector’s platform_concurrency, a whole number from 1 to 256, and names the entry’s key when it is not', () => {
    const entry = (value: unknown) => ({ connectors: [{ name: 'desk', type: 'recorder', platform_concurrency: value }] });
    expect(Settings.parse(entry(4)).connectors[0]?.platform_concurrency).toBe(4);
    expect(Settings.parse({ connectors: [{ name: 'desk', type: 'recorder' }] }).connectors[0]?.platform_concurrency).toBeUndefined();
    for (const bad of [0, 257, 1.5, 'four']) {
      const issues = Settings.safeParse(entry(bad)).error?.issues ?? [];
      expect(issues.map((i) => i.path.join('.')), String(bad)).toEqual(['connectors.0.platform_concurrency']);
    }
  });
});
