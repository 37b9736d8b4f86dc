import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { backoffDelayMs } from '../../src/jobs/backoff.ts';
import { JobNotDeadError, JobNotFoundError, PermanentJobError } from '../../src/jobs/errors.ts';
import { JobQueue, type EnqueueInput, type Job } from '../../src/jobs/queue.ts';
import { openStore } from '../../src/store/database.ts';
import { tempDir } from '../support/temp-dir.ts';

function setup(backoff = { baseMs: 1_000, maxMs: 60_000 }) {
  const store = openStore({ path: join(tempDir(), 'jobs.db') });
  onTestFinished(() => store.close());
  const queue = new JobQueue(store, { backoff });
  return {
    store,
    queue,
    enqueue: (input: EnqueueInput) => store.write((tx) => queue.enqueue(tx, input)),
    fail: (job: Job, owner: string, err: unknown) => store.write((tx) => queue.fail(tx, job, owner, err)),
    /** Marks a held job done; false when `owner` does not hold it. */
    complete: (id: number, owner: string) => store.write((tx) => tx.jobs.complete(id, owner, Date.now())),
  };
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
  it('loses the job when the enqueuing write fails', async () => {
    const { store, queue, enqueue } = setup();
    await expect(
      store.write(async (tx) => {
        await queue.enqueue(tx, { kind: 'k', payload: { n: 1 } });
        throw new Error('abort the write');
      }),
    ).rejects.toThrow('abort the write');
    const kept = await enqueue({ kind: 'k', payload: { n: 2 } });
    expect((await queue.claim('k', 'w', 1_000, 10)).map((j) => [j.id, j.payload])).toEqual([[kept, { n: 2 }]]);
  });

  it('gives each due job to one worker only, oldest first, and only of the asked kind', async () => {
    const { queue, enqueue } = setup();
    const ids = await Promise.all([1, 2, 3, 4].map((n) => enqueue({ kind: 'a', payload: n })));
    await enqueue({ kind: 'b', payload: 'other' });
    await enqueue({ kind: 'a', payload: 'later', runAt: Date.now() + 60_000 });
    const first = await queue.claim('a', 'w1', 10_000, 3);
    const second = await queue.claim('a', 'w2', 10_000, 3);
    expect(first.map((j) => j.id)).toEqual(ids.slice(0, 3));
    expect(second.map((j) => j.id)).toEqual([ids[3]]);
    expect(first.every((j) => j.status === 'running' && j.attempts === 1)).toBe(true);
  });

  it('claims concurrently asked batches without handing a job out twice', async () => {
    const { queue, enqueue } = setup();
    const ids = await Promise.all(Array.from({ length: 30 }, (_, n) => enqueue({ kind: 'a', payload: n })));
    // Asked in one turn: one grouped commit, each claim seeing the ones before it.
    const batches = await Promise.all(['w1', 'w2', 'w3', 'w4'].map((w) => queue.claim('a', w, 10_000, 10)));
    const claimed = batches.flat().map((j) => j.id);
    expect(new Set(claimed).size).toBe(claimed.length);
    expect(claimed.sort((a, b) => a - b)).toEqual(ids);
    expect(batches.map((b) => b.length)).toEqual([10, 10, 10, 0]);
  });

  it('requeues a failure with backoff, honouring retryAfterMs', async () => {
    const { queue, enqueue, fail } = setup();
    const id = await enqueue({ kind: 'k', payload: null });
    const [job] = await queue.claim('k', 'w', 10_000, 1);
    const before = Date.now();
    const outcome = await fail(job!, 'w', Object.assign(new Error('429 from the platform'), { retryAfterMs: 20_000 }));
    expect(outcome.status).toBe('queued');
    const stored = (await queue.get(id))!;
    expect(stored.status).toBe('queued');
    expect(stored.runAt).toBeGreaterThanOrEqual(before + 20_000);
    expect(stored.lastError).toBe('429 from the platform');
    expect(await queue.claim('k', 'w', 10_000, 1)).toEqual([]);
  });

  it('dead-letters after max_attempts keeping the last error, and on a permanent error at once', async () => {
    const { queue, enqueue, fail } = setup({ baseMs: 0, maxMs: 0 });
    const id = await enqueue({ kind: 'k', payload: null, maxAttempts: 2 });
    await fail((await queue.claim('k', 'w', 10_000, 1))[0]!, 'w', new Error('first'));
    const outcome = await fail((await queue.claim('k', 'w', 10_000, 1))[0]!, 'w', new Error('second'));
    expect(outcome).toEqual({ status: 'dead' });
    expect(await queue.get(id)).toMatchObject({ status: 'dead', attempts: 2, lastError: 'second' });

    const other = await enqueue({ kind: 'k', payload: null, maxAttempts: 5 });
    await fail((await queue.claim('k', 'w', 10_000, 1))[0]!, 'w', new PermanentJobError('404 configuration gone'));
    expect(await queue.get(other)).toMatchObject({ status: 'dead', attempts: 1, lastError: 'TG_JOB_PERMANENT_FAILURE: 404 configuration gone' });
    expect(await queue.countByStatus()).toEqual({ queued: 0, running: 0, done: 0, dead: 2 });
  });

  it('retries a dead job on request from a fresh attempt count, and refuses other jobs', async () => {
    const { queue, enqueue, fail } = setup();
    const id = await enqueue({ kind: 'k', payload: null, maxAttempts: 1 });
    await fail((await queue.claim('k', 'w', 10_000, 1))[0]!, 'w', new Error('boom'));
    expect(await queue.retryDead(id)).toMatchObject({ status: 'queued', attempts: 0 });
    expect((await queue.claim('k', 'w', 10_000, 1)).map((j) => j.id)).toEqual([id]);
    await expect(queue.retryDead(id)).rejects.toThrow(JobNotDeadError);
    await expect(queue.retryDead(9999)).rejects.toThrow(JobNotFoundError);
  });

  // Guards recovery from a worker that died holding a job.
  it('lets another worker take a job whose lease expired, and ignores the old holder after', async () => {
    const { queue, enqueue, complete } = setup();
    const id = await enqueue({ kind: 'k', payload: null });
    expect(await queue.claim('k', 'dead-worker', 30, 1)).toHaveLength(1);
    expect(await queue.claim('k', 'w2', 10_000, 1)).toEqual([]);
    await new Promise((r) => setTimeout(r, 50));
    const [again] = await queue.claim('k', 'w2', 10_000, 1);
    expect(again).toMatchObject({ id, attempts: 2 });
    expect(await complete(id, 'dead-worker')).toBe(false);
    expect(await complete(id, 'w2')).toBe(true);
    expect((await queue.get(id))!.status).toBe('done');
  });

  // The runner's claims look for lost leases only now and then: a claim told not to must leave them alone.
  it('takes a job whose lease expired only in a claim that looks for expired leases', async () => {
    const { store, queue, enqueue } = setup();
    const id = await enqueue({ kind: 'k', payload: null });
    expect(await queue.claim('k', 'dead-worker', 30, 1)).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 50));
    const queued = await enqueue({ kind: 'k', payload: { n: 2 } });
    const due = await store.write((tx) => queue.claimIn(tx, 'k', 'w2', 10_000, 5, false));
    expect(due.map((j) => j.id)).toEqual([queued]);
    expect((await queue.get(id))!.status).toBe('running');
    const looked = await store.write((tx) => queue.claimIn(tx, 'k', 'w3', 10_000, 5, true));
    expect(looked).toMatchObject([{ id, attempts: 2 }]);
  });

  it('releases a claimed job without counting the attempt', async () => {
    const { queue, enqueue } = setup();
    const id = await enqueue({ kind: 'k', payload: null });
    await queue.claim('k', 'w', 10_000, 1);
    expect(await queue.release(id, 'w')).toBe(true);
    expect(await queue.get(id)).toMatchObject({ status: 'queued', attempts: 0 });
  });
});
