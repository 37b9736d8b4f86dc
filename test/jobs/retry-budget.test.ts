/**
 * The retry budget is a duration: a job failing through an outage keeps
 * trying, with backoff capped at 15 minutes and jittered, until its deadline
 * (queued time + 3 days by default), then dies with its last error. A real
 * SQLite queue driven by a fake clock: three days pass in milliseconds.
 */
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { backoffDelayMs, DEFAULT_BACKOFF } from '../../src/jobs/backoff.ts';
import { JobQueue, type EnqueueInput, type Job } from '../../src/jobs/queue.ts';
import { nextRunAt } from '../../src/jobs/retry-budget.ts';
import { openStore } from '../../src/store/database.ts';
import { tempDir } from '../support/temp-dir.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** The old budget: 8 tries doubling from 1 s gave up after 63–127 s. */
const OLD_BUDGET_MS = 127_000;
const CAP_MS = 15 * MINUTE;
const START = Date.parse('2026-03-02T09:00:00Z');

function fakeQueue() {
  const clock = { now: START };
  const store = openStore({ path: join(tempDir(), 'jobs.db') });
  onTestFinished(() => store.close());
  const queue = new JobQueue(store, { now: () => clock.now });
  return { store, clock, queue, enqueue: (input: EnqueueInput) => store.write((tx) => queue.enqueue(tx, input)) };
}

/** Claims the job whenever it is due and fails it, until it is dead or `until` has passed; returns each try's time. */
async function failUntilDead(queue: JobQueue, clock: { now: number }, id: number, until: number, error = (n: number) => new Error(`503 from the helpdesk (try ${n})`)): Promise<number[]> {
  const tries: number[] = [];
  while (clock.now <= until) {
    const job = (await queue.get(id)) as Job;
    if (job.status === 'dead') break;
    clock.now = Math.max(clock.now, job.runAt);
    const [claimed] = await queue.claim('deliver', 'w', 30_000, 1);
    expect(claimed?.id).toBe(id);
    tries.push(clock.now);
    await queue.write((tx) => queue.fail(tx, claimed as Job, 'w', error(claimed!.attempts)));
  }
  return tries;
}

describe('retry budget', () => {
  // Guards against agent replies dead-lettered after ~2 minutes of a helpdesk outage (the old max_attempts 8).
  it('keeps retrying through a long outage and gives up only at its deadline, with its last error', async () => {
    const { queue, clock, enqueue } = fakeQueue();
    const id = await enqueue({ kind: 'deliver', payload: { delivery: 1 } });

    const firstDay = await failUntilDead(queue, clock, id, START + DAY);
    expect((await queue.get(id))!.status).toBe('queued');
    expect(firstDay.length).toBeGreaterThan(8);
    expect(firstDay.at(-1)! - START).toBeGreaterThan(OLD_BUDGET_MS);

    const rest = await failUntilDead(queue, clock, id, START + 4 * DAY);
    const tries = [...firstDay, ...rest];
    const dead = (await queue.get(id))!;
    expect(dead).toMatchObject({ status: 'dead', attempts: tries.length, lastError: `503 from the helpdesk (try ${tries.length})` });
    // The last try runs at the deadline, not later, and not more than one capped delay before it.
    const deadline = START + 3 * DAY;
    expect(tries.at(-1)!).toBeLessThanOrEqual(deadline);
    expect(tries.at(-1)!).toBeGreaterThan(deadline - CAP_MS);
    // About 590 tries at most in 3 days: the attempt cap (1000) is only a safety.
    expect(tries.length).toBeGreaterThan(250);
    expect(tries.length).toBeLessThan(1_000);
    const gaps = tries.slice(1).map((t, i) => t - tries[i]!);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(CAP_MS);
  });

  it('gives a job retried by hand a fresh deadline, counted from the retry', async () => {
    const { queue, clock, enqueue } = fakeQueue();
    const id = await enqueue({ kind: 'deliver', payload: null, retryForMs: HOUR });
    await failUntilDead(queue, clock, id, START + DAY);
    expect((await queue.get(id))!.status).toBe('dead');

    clock.now = START + 2 * DAY;
    const retried = await queue.retryDead(id);
    expect(retried).toMatchObject({ status: 'queued', attempts: 0, giveUpAt: clock.now + HOUR });
    const tries = await failUntilDead(queue, clock, id, START + 3 * DAY);
    expect((await queue.get(id))!.status).toBe('dead');
    expect(tries.at(-1)! - tries[0]!).toBeGreaterThan(HOUR - CAP_MS);
    expect(tries.at(-1)!).toBeLessThanOrEqual(START + 2 * DAY + HOUR);
  });

  it('still ends at the attempt cap, and at once on a permanent failure', async () => {
    const { queue, clock, enqueue } = fakeQueue();
    const capped = await enqueue({ kind: 'deliver', payload: null, maxAttempts: 3 });
    expect(await failUntilDead(queue, clock, capped, START + DAY)).toHaveLength(3);
    expect((await queue.get(capped))!.status).toBe('dead');

    const refused = await enqueue({ kind: 'deliver', payload: null });
    const tries = await failUntilDead(queue, clock, refused, START + DAY, () => Object.assign(new Error('422 from the helpdesk'), { permanent: true }));
    expect(tries).toHaveLength(1);
    expect((await queue.get(refused))).toMatchObject({ status: 'dead', lastError: '422 from the helpdesk' });
  });

  it('runs a job queued before deadlines existed (no deadline stored) until its attempt cap', async () => {
    const { store, queue, clock, enqueue } = fakeQueue();
    const id = await enqueue({ kind: 'deliver', payload: null, maxAttempts: 8 });
    await store.write((tx) => tx.sql.run('update jobs set retry_for_ms = null, give_up_at = null where id = ?', [id]));
    expect(await failUntilDead(queue, clock, id, START + DAY)).toHaveLength(8);
    expect((await queue.get(id))).toMatchObject({ status: 'dead', giveUpAt: null });
  });
});

describe('backoff', () => {
  it('never waits longer than the cap, and spreads retries with jitter (half fixed, half random)', async () => {
    for (let attempt = 1; attempt <= 60; attempt++) {
      const ceiling = Math.min(CAP_MS, 1_000 * 2 ** (attempt - 1));
      const delays = Array.from({ length: 200 }, () => backoffDelayMs(attempt, DEFAULT_BACKOFF));
      for (const d of delays) {
        expect(d).toBeLessThanOrEqual(ceiling);
        expect(d).toBeGreaterThanOrEqual(ceiling / 2);
      }
      expect(new Set(delays).size).toBeGreaterThan(100);
    }
  });

  it('schedules the last retry at the deadline, unless a Retry-After asks for later', async () => {
    const job = { attempts: 20, maxAttempts: 1_000, giveUpAt: START + 5 * MINUTE };
    expect(nextRunAt(job, START, DEFAULT_BACKOFF, undefined, () => 1)).toBe(START + 5 * MINUTE);
    expect(nextRunAt(job, START, DEFAULT_BACKOFF, 10 * MINUTE, () => 1)).toBe(START + 10 * MINUTE);
    expect(nextRunAt({ ...job, giveUpAt: START + DAY }, START, DEFAULT_BACKOFF, undefined, () => 1)).toBe(START + CAP_MS);
  });

  // Guards against a long platform-token pause (postponed jobs) eating the retry budget and dead-lettering the messages.
  it('moves the deadline of a postponed job on by its wait, and the try does not count', async () => {
    const { queue, clock, enqueue } = fakeQueue();
    const id = await enqueue({ kind: 'deliver', payload: { delivery: 1 } });
    const before = (await queue.get(id))!.giveUpAt!;
    expect(before).toBe(START + 3 * DAY);
    for (let i = 0; i < 5; i++) {
      const [claimed] = await queue.claim('deliver', 'w', 30_000, 1);
      await queue.write((tx) => queue.postpone(tx, claimed!.id, 'w', clock.now + DAY, 'TG_CONNECTOR_PAUSED: the platform refuses the token'));
      clock.now += DAY;
    }
    const job = (await queue.get(id))!;
    expect(job).toMatchObject({ status: 'queued', attempts: 0, giveUpAt: before + 5 * DAY });
    expect(job.lastError).toMatch(/TG_CONNECTOR_PAUSED/);
  });
});
