/**
 * A kind with `takeOnEnqueue`, on both backends: a job enqueued while a slot
 * is free is taken in the enqueuing write (running, its lease held, its
 * `onClaim` work done) by the time that write's caller is answered, and its
 * handler starts without a claim of its own; a later job of an order key is
 * not taken past an earlier one that waits (queued by another process, which
 * the runner cannot know of; on SQLite, past an earlier one of its kind); a
 * rolled-back enqueue gives its slot back; with every slot busy the job
 * waits for a claim, behind those queued before it.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { JobQueue, type EnqueueInput } from '../../src/jobs/queue.ts';
import { JobRunner, type JobKindOptions } from '../../src/jobs/runner.ts';
import { createLogger } from '../../src/log/logger.ts';
import { openTestStore, STORE_BACKENDS, type TestBackend } from '../support/store-backends.ts';
import { until } from '../support/wait.ts';

/** Long: a prompt run can only be a take (or a claim woken by a commit). */
const POLL_MS = 60_000;
const WAIT_MS = 5_000;

async function setup(backend: TestBackend) {
  const { store } = await openTestStore(backend);
  const queue = new JobQueue(store);
  const runner = new JobRunner(queue, { logger: createLogger('silent'), pollMs: POLL_MS });
  onTestFinished(() => runner.stop(100));
  const enqueue = (input: EnqueueInput) => store.write((tx) => queue.enqueue(tx, input));
  /** Starts the runner and lets a first job run through, so its loop has looked and sleeps. */
  const startIdle = async () => {
    runner.register('warm-up', { handler: async () => {} });
    runner.start();
    const id = await enqueue({ kind: 'warm-up', payload: null });
    await until(async () => (await store.read.jobs.get(id))?.status === 'done' && runner.inFlightCount() === 0, WAIT_MS, 'the warm-up job done');
  };
  return { store, queue, runner, enqueue, startIdle };
}

/** A handler that records what starts and holds each run until `release` is called. */
function held() {
  const started: string[] = [];
  const claimed: unknown[] = [];
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const options: JobKindOptions<string> = {
    concurrency: 2,
    takeOnEnqueue: true,
    handler: async (name, ctx) => {
      started.push(name);
      claimed.push(ctx.claimed);
      await gate;
    },
  };
  return { started, claimed, options, release: () => release() };
}

describe.each(STORE_BACKENDS)('taking jobs in the enqueuing write (%s store)', (backend) => {
  it('stops while its first claim is still being written, without sleeping until the next poll', async () => {
    const { runner } = await setup(backend);
    runner.register('send', held().options);
    runner.start();
    // The claim's write is queued, not committed: stop's wake-up finds no sleeping loop.
    const stopped = runner.stop(100).then(() => 'stopped');
    const late = new Promise((resolve) => setTimeout(() => resolve(`still stopping after ${WAIT_MS} ms`), WAIT_MS).unref());
    expect(await Promise.race([stopped, late])).toBe('stopped');
  });

  it('holds the job running when the enqueue is answered, with its onClaim result, and runs it', async () => {
    const { store, runner, enqueue, startIdle } = await setup(backend);
    const h = held();
    runner.register<string>('send', { ...h.options, onClaim: async (tx, job) => (await tx.jobs.get(job.id))?.status });
    await startIdle();
    const id = await enqueue({ kind: 'send', payload: 'one' });
    // Taken in the enqueuing write: without it the job would still be queued here, waiting for a claim.
    const row = await store.read.jobs.get(id);
    expect(row).toMatchObject({ status: 'running', attempts: 1 });
    await until(async () => h.started.length === 1, WAIT_MS, 'the taken job started');
    // onClaim ran in the taking write, after the take: it saw the job running.
    expect(h.claimed).toEqual(['running']);
    h.release();
    // This job, not a count: the warm-up job is done too, so `done === 1` held only until this one finished.
    await until(async () => (await store.read.jobs.get(id))?.status === 'done', WAIT_MS, 'the job done');
  });

  /**
   * A job of order key `earlierKey` queued through another queue (another process's, a CLI's: this runner is not
   * told of it), then one of `laterKey` through this runner's, both of the kind `held` runs.
   */
  async function earlierElsewhereThenLater(earlierKey: string, laterKey: string) {
    const { runner, enqueue, store, startIdle } = await setup(backend);
    const h = held();
    runner.register<string>('send', h.options);
    await startIdle();
    const elsewhere = new JobQueue(store);
    await store.write((tx) => elsewhere.enqueue(tx, { kind: 'send', payload: 'earlier', orderKey: earlierKey }));
    const later = await enqueue({ kind: 'send', payload: 'later', orderKey: laterKey });
    return { h, laterStatus: (await store.read.jobs.get(later))?.status };
  }

  it('does not take a job past an earlier due one of its order key: they start in the order queued', async () => {
    const { h, laterStatus } = await earlierElsewhereThenLater('thread-1', 'thread-1');
    expect(laterStatus).toBe('queued');
    await until(async () => h.started.length >= 1, WAIT_MS, 'the earlier job started');
    h.release(); // on PostgreSQL the later one waits until the earlier one is done
    await until(async () => h.started.length === 2, WAIT_MS, 'both jobs started');
    expect(h.started).toEqual(['earlier', 'later']);
  });

  it('on SQLite takes no job past an earlier due one of its kind queued elsewhere, whatever their keys; PostgreSQL only keeps a key waiting', async () => {
    const { h, laterStatus } = await earlierElsewhereThenLater('thread-1', 'thread-2');
    // SQLite's one gateway keeps a thread's order by claiming in due order, so the later job waits for that claim.
    expect(laterStatus).toBe(backend === 'sqlite' ? 'queued' : 'running');
    // On PostgreSQL the earlier job waits for this runner's next look (it was not told of it): only the later one runs.
    const expected = backend === 'sqlite' ? ['earlier', 'later'] : ['later'];
    await until(async () => h.started.length === expected.length, WAIT_MS, 'the jobs started');
    expect(h.started).toEqual(expected);
    h.release();
  });

  it('gives the slot back when the enqueuing write is rolled back', async () => {
    const { store, queue, runner, enqueue, startIdle } = await setup(backend);
    const h = held();
    runner.register<string>('send', { ...h.options, concurrency: 1 });
    await startIdle();
    const refused = store.write(async (tx) => {
      await queue.enqueue(tx, { kind: 'send', payload: 'rolled back' });
      throw new Error('the rest of the write failed');
    });
    await expect(refused).rejects.toThrow('the rest of the write failed');
    expect(runner.inFlightCount()).toBe(0);
    const id = await enqueue({ kind: 'send', payload: 'kept' });
    expect((await store.read.jobs.get(id))?.status).toBe('running');
    await until(async () => h.started.length === 1, WAIT_MS, 'the kept job started');
    expect(h.started).toEqual(['kept']);
    expect((await queue.countByStatus()).queued).toBe(0);
    h.release();
  });

  it('runs a job once, on one slot, when its enqueuing write ran again because a later write of its group failed', async () => {
    const { store, queue, runner, startIdle } = await setup(backend);
    const h = held();
    runner.register<string>('send', { ...h.options, concurrency: 1 });
    await startIdle();
    // Asked for in one turn: one group on SQLite, whose first run stops at the failure and is rolled back, the take
    // with it; the enqueue then runs again and takes the job again. On PostgreSQL each is a transaction of its own.
    const kept = store.write((tx) => queue.enqueue(tx, { kind: 'send', payload: 'kept' }));
    const refused = store.write(async (tx) => {
      await queue.enqueue(tx, { kind: 'other', payload: null });
      throw new Error('a neighbour failed');
    });
    await expect(refused).rejects.toThrow('a neighbour failed');
    const id = await kept;
    expect(await store.read.jobs.get(id)).toMatchObject({ status: 'running', attempts: 1 });
    await until(async () => h.started.length === 1, WAIT_MS, 'the kept job started');
    // Its first run's slot was given back: one job in flight, on the one slot.
    expect(runner.inFlightCount()).toBe(1);
    expect(await queue.countByStatus()).toMatchObject({ queued: 0, running: 1 });
    h.release();
    await until(async () => (await queue.countByStatus()).done === 2 && runner.inFlightCount() === 0, WAIT_MS, 'the job done');
    expect(h.started).toEqual(['kept']);
  });

  it('leaves the job queued for a claim when every slot is taken, and runs it once one frees', async () => {
    const { store, runner, enqueue, startIdle } = await setup(backend);
    const h = held();
    runner.register<string>('send', { ...h.options, concurrency: 1 });
    await startIdle();
    const first = await enqueue({ kind: 'send', payload: 'first' });
    const second = await enqueue({ kind: 'send', payload: 'second' });
    const third = await enqueue({ kind: 'send', payload: 'third' });
    expect((await store.read.jobs.get(first))?.status).toBe('running');
    expect((await store.read.jobs.get(second))?.status).toBe('queued');
    expect((await store.read.jobs.get(third))?.status).toBe('queued');
    h.release();
    await until(async () => h.started.length === 3, WAIT_MS, 'the others claimed after the first ended');
    expect(h.started).toEqual(['first', 'second', 'third']);
  });
});
