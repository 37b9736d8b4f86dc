import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { backoffDelayMs } from '../../src/jobs/backoff.ts';
import { JobNotDeadError, JobNotFoundError, PermanentJobError } from '../../src/jobs/errors.ts';
import { JobQueue } from '../../src/jobs/queue.ts';
import { openStore } from '../../src/store/database.ts';
import { tempDir } from '../support/temp-dir.ts';

function setup(backoff = { baseMs: 1_000, maxMs: 60_000 }) {
  const store = openStore({ path: join(tempDir(), 'jobs.db') });
  onTestFinished(() => store.close());
  return { store, queue: new JobQueue(store, { backoff }) };
}

describe('backoff', () => {
  it('doubles per attempt within equal-jitter bounds, caps, and honours Retry-After', () => {
    const policy = { baseMs: 1_000, maxMs: 8_000 };
    expect(backoffDelayMs(1, policy, undefined, () => 0)).toBe(500);
    expect(backoffDelayMs(1, policy, undefined, () => 1)).toBe(1_000);
    expect(backoffDelayMs(3, policy, undefined, () => 1)).toBe(4_000);
    expect(backoffDelayMs(10, policy, undefined, () => 1)).toBe(8_000);
    expect(backoffDelayMs(1, policy, 30_000, () => 0.5)).toBe(30_000);
  });
});

describe('job queue', () => {
  // Guards the transactional outbox: a job must not outlive the write it belongs to.
  it('loses the job when the enqueuing transaction rolls back', () => {
    const { store, queue } = setup();
    expect(() =>
      store.transaction(() => {
        queue.enqueue({ kind: 'k', payload: { n: 1 } });
        throw new Error('abort the transaction');
      }),
    ).toThrow('abort the transaction');
    const kept = store.transaction(() => queue.enqueue({ kind: 'k', payload: { n: 2 } }));
    expect(queue.claim('k', 'w', 1_000, 10).map((j) => [j.id, j.payload])).toEqual([[kept, { n: 2 }]]);
  });

  it('gives each due job to one worker only, oldest first, and only of the asked kind', () => {
    const { queue } = setup();
    const ids = [1, 2, 3, 4].map((n) => queue.enqueue({ kind: 'a', payload: n }));
    queue.enqueue({ kind: 'b', payload: 'other' });
    queue.enqueue({ kind: 'a', payload: 'later', runAt: Date.now() + 60_000 });
    const first = queue.claim('a', 'w1', 10_000, 3);
    const second = queue.claim('a', 'w2', 10_000, 3);
    expect(first.map((j) => j.id)).toEqual(ids.slice(0, 3));
    expect(second.map((j) => j.id)).toEqual([ids[3]]);
    expect(first.every((j) => j.status === 'running' && j.attempts === 1)).toBe(true);
  });

  it('requeues a failure with backoff, honouring retryAfterMs', () => {
    const { queue } = setup();
    const id = queue.enqueue({ kind: 'k', payload: null });
    const [job] = queue.claim('k', 'w', 10_000, 1);
    const before = Date.now();
    const outcome = queue.fail(job!, 'w', Object.assign(new Error('429 from the platform'), { retryAfterMs: 20_000 }));
    expect(outcome.status).toBe('queued');
    const stored = queue.get(id)!;
    expect(stored.status).toBe('queued');
    expect(stored.runAt).toBeGreaterThanOrEqual(before + 20_000);
    expect(stored.lastError).toBe('429 from the platform');
    expect(queue.claim('k', 'w', 10_000, 1)).toEqual([]);
  });

  it('dead-letters after max_attempts keeping the last error, and on a permanent error at once', () => {
    const { queue } = setup({ baseMs: 0, maxMs: 0 });
    const id = queue.enqueue({ kind: 'k', payload: null, maxAttempts: 2 });
    queue.fail(queue.claim('k', 'w', 10_000, 1)[0]!, 'w', new Error('first'));
    const outcome = queue.fail(queue.claim('k', 'w', 10_000, 1)[0]!, 'w', new Error('second'));
    expect(outcome).toEqual({ status: 'dead' });
    expect(queue.get(id)).toMatchObject({ status: 'dead', attempts: 2, lastError: 'second' });

    const other = queue.enqueue({ kind: 'k', payload: null, maxAttempts: 5 });
    queue.fail(queue.claim('k', 'w', 10_000, 1)[0]!, 'w', new PermanentJobError('404 configuration gone'));
    expect(queue.get(other)).toMatchObject({ status: 'dead', attempts: 1, lastError: 'TG_JOB_PERMANENT_FAILURE: 404 configuration gone' });
    expect(queue.countByStatus()).toEqual({ queued: 0, running: 0, done: 0, dead: 2 });
  });

  it('retries a dead job on request from a fresh attempt count, and refuses other jobs', () => {
    const { queue } = setup();
    const id = queue.enqueue({ kind: 'k', payload: null, maxAttempts: 1 });
    queue.fail(queue.claim('k', 'w', 10_000, 1)[0]!, 'w', new Error('boom'));
    expect(queue.retryDead(id)).toMatchObject({ status: 'queued', attempts: 0 });
    expect(queue.claim('k', 'w', 10_000, 1).map((j) => j.id)).toEqual([id]);
    expect(() => queue.retryDead(id)).toThrow(JobNotDeadError);
    expect(() => queue.retryDead(9999)).toThrow(JobNotFoundError);
  });

  // Guards recovery from a worker that died holding a job.
  it('lets another worker take a job whose lease expired, and ignores the old holder after', async () => {
    const { queue } = setup();
    const id = queue.enqueue({ kind: 'k', payload: null });
    expect(queue.claim('k', 'dead-worker', 30, 1)).toHaveLength(1);
    expect(queue.claim('k', 'w2', 10_000, 1)).toEqual([]);
    await new Promise((r) => setTimeout(r, 50));
    const [again] = queue.claim('k', 'w2', 10_000, 1);
    expect(again).toMatchObject({ id, attempts: 2 });
    expect(queue.complete(id, 'dead-worker')).toBe(false);
    expect(queue.complete(id, 'w2')).toBe(true);
    expect(queue.get(id)!.status).toBe('done');
  });

  it('releases a claimed job without counting the attempt', () => {
    const { queue } = setup();
    const id = queue.enqueue({ kind: 'k', payload: null });
    queue.claim('k', 'w', 10_000, 1);
    expect(queue.release(id, 'w')).toBe(true);
    expect(queue.get(id)).toMatchObject({ status: 'queued', attempts: 0 });
  });
});
