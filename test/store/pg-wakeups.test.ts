/**
 * Jobs queued on one replica wake another at once (store/postgres/pg-wakeups.ts): two stores and runners on one
 * database, the runners polling only every minute, so a job can start on the other one within the test's waits only
 * through the notification sent once its write committed (queued where no runner runs, in a lane not seen, behind a
 * full lane, given back on stop). After a database restart the listener connects again and
 * one look finds what was queued while it could not listen. A lease given back is taken by a replica that would ask
 * again only a minute later.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { runUnderLease } from '../../src/bridge/poller-lease.ts';
import { JobQueue } from '../../src/jobs/queue.ts';
import { JobRunner } from '../../src/jobs/runner.ts';
import { createLogger } from '../../src/log/logger.ts';
import { openPostgresStore } from '../../src/store/postgres/pg-store.ts';
import type { PgWakeups } from '../../src/store/postgres/pg-wakeups.ts';
import type { Store, Wakeup } from '../../src/store/store.ts';
import { startPostgres, type RunningPostgres } from '../support/postgres-server.ts';
import { until } from '../support/wait.ts';

const POLL_MS = 60_000;
/** Well under a poll: only a wake-up starts a job this soon. */
const SOON_MS = 5_000;

// A cluster of its own: one test restarts it.
let own: RunningPostgres;
beforeAll(async () => {
  own = await startPostgres();
}, 60_000);
afterAll(() => own?.stop());

async function superuser<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** A replica: its store (wake-ups on), queue and runner, what it ran, and the wake-ups it was told of. */
async function replica(url: string, options: { migrate?: boolean } = {}) {
  const store = await openPostgresStore({ url, poolSize: 3, onIdleError: () => {}, onWakeupsError: () => {}, ...options });
  const queue = new JobQueue(store);
  const runner = new JobRunner(queue, { logger: createLogger('silent'), pollMs: POLL_MS });
  const ran: string[] = [];
  const handler = async (name: string) => void ran.push(name);
  runner.register<string>('send', { handler });
  runner.register<string>('post', { handler, lanes: { group: 'posts', concurrency: () => 1 } });
  runner.register<string>('quick', { handler, takeOnEnqueue: true });
  // One at a time, each run held until the test ends.
  const held: (() => void)[] = [];
  runner.register<string>('hold', { concurrency: 1, takeOnEnqueue: true, handler: async (name) => {
    ran.push(name);
    await new Promise<void>((resolve) => held.push(resolve));
  } });
  const told: Wakeup[] = [];
  (store.wakeups as NonNullable<Store['wakeups']>).subscribe((w) => {
    told.push(w);
    if ('all' in w) runner.notify();
    else if ('kind' in w) runner.notify(w.kind, w.lane);
  });
  onTestFinished(async () => {
    for (const release of held) release();
    await runner.stop(100);
    await store.close();
  });
  // Listening once its LISTEN succeeded.
  await until(() => (store.wakeups as PgWakeups).connected, SOON_MS, 'the replica to listen');
  return { store, queue, runner, ran, told };
}

const looks = (told: Wakeup[]) => told.filter((w) => 'all' in w).length;

describe('wake-ups across replicas (PostgreSQL)', () => {
  it('a job queued on one replica starts on another before its poll, in a lane it had not seen', { timeout: 30_000 }, async () => {
    const url = await own.createDatabase('wake_across');
    const a = await replica(url);
    const b = await replica(url);
    b.runner.start(); // A runs nothing: only B can run the jobs
    await new Promise((r) => setTimeout(r, 200)); // B's first claims are done: it sleeps for a poll
    await a.store.write((tx) => a.queue.enqueue(tx, { kind: 'send', payload: 'one' }));
    await until(() => b.ran.includes('one'), SOON_MS, 'B to run the job queued on A');
    await a.store.write((tx) => a.queue.enqueue(tx, { kind: 'post', payload: 'two', lane: 'mail' }));
    await until(() => b.ran.includes('two'), SOON_MS, 'B to run the job of a new lane');
    expect(b.told).toContainEqual({ kind: 'post', lane: 'mail' });
    // A's own notifications are not told to A: its runner knew.
    expect(a.told.filter((w) => !('all' in w))).toEqual([]);
  });

  /** Two replicas, A running (and holding) a job of kind `hold`, B started after it and asleep for a poll. */
  async function aHolds(database: string, job: string) {
    const url = await own.createDatabase(database);
    const a = await replica(url);
    const b = await replica(url);
    a.runner.start();
    await a.store.write((tx) => a.queue.enqueue(tx, { kind: 'hold', payload: job }));
    await until(() => a.ran.includes(job), SOON_MS, 'A to run the job');
    b.runner.start();
    await new Promise((r) => setTimeout(r, 200)); // B's first claims are done (the job is A's): it sleeps for a poll
    return { a, b };
  }

  it('a job queued behind a full lane starts on the other replica at once', { timeout: 30_000 }, async () => {
    const { a, b } = await aHolds('wake_full', 'first');
    // A's only slot is taken: the job waits on A's side; B has a free one.
    await a.store.write((tx) => a.queue.enqueue(tx, { kind: 'hold', payload: 'second' }));
    await until(() => b.ran.includes('second'), SOON_MS, 'B to run the job A had no slot for');
    expect(a.ran).not.toContain('second');
  });

  it('a job given back by a replica that stops starts on the other at once', { timeout: 30_000 }, async () => {
    const { a, b } = await aHolds('wake_given_back', 'unfinished');
    expect(b.ran).toEqual([]);
    await a.runner.stop(0); // its handler still runs: the job is given back
    await until(() => b.ran.includes('unfinished'), SOON_MS, 'B to run the job A gave back');
  });

  it('a burst of jobs sends a few wake-ups (the first, then one after the last), and a rolled-back write none', { timeout: 30_000 }, async () => {
    const url = await own.createDatabase('wake_group');
    const a = await replica(url);
    const b = await replica(url);
    const before = b.told.length;
    await Promise.all(Array.from({ length: 50 }, (_, i) => a.store.write((tx) => a.queue.enqueue(tx, { kind: 'send', payload: `j${i}` }))));
    await a.store
      .write(async (tx) => {
        await a.queue.enqueue(tx, { kind: 'post', payload: 'never', lane: 'gone' });
        throw new Error('rolled back');
      })
      .catch(() => {});
    await a.store.write((tx) => a.queue.enqueue(tx, { kind: 'post', payload: 'last', lane: 'last' }));
    await until(() => b.told.some((w) => 'kind' in w && w.lane === 'last'), SOON_MS, 'the last wake-up');
    const sends = b.told.slice(before).filter((w) => 'kind' in w && w.kind === 'send');
    expect(sends.length).toBeGreaterThanOrEqual(1);
    expect(sends.length).toBeLessThanOrEqual(5); // debounced, not one per job
    expect(b.told).not.toContainEqual({ kind: 'post', lane: 'gone' });
  });

  it('a job taken in the write that queued it, or claimed by a free slot after it, wakes nobody', { timeout: 30_000 }, async () => {
    const url = await own.createDatabase('wake_taken');
    const a = await replica(url);
    const b = await replica(url);
    a.runner.start();
    await a.store.write((tx) => a.queue.enqueue(tx, { kind: 'quick', payload: 'taken' }));
    await until(() => a.ran.includes('taken'), SOON_MS, 'A to run the job it took');
    await a.store.write((tx) => a.queue.enqueue(tx, { kind: 'post', payload: 'claimed', lane: 'here' }));
    await until(() => a.ran.includes('claimed'), SOON_MS, 'A to claim the job of a lane with a free slot');
    // Notifications arrive in the order sent: once this one is in (queued where no runner takes it), one for the job
    // taken would be too.
    const bare = new JobQueue(a.store);
    await a.store.write((tx) => bare.enqueue(tx, { kind: 'post', payload: 'marker', lane: 'marker' }));
    await until(() => b.told.some((w) => 'kind' in w && w.lane === 'marker'), SOON_MS, 'the marker wake-up');
    expect(b.told.filter((w) => 'kind' in w && (w.kind === 'quick' || w.lane === 'here'))).toEqual([]);
  });

  it('a lease given back by a replica that stops is taken by the waiting one at once', { timeout: 30_000 }, async () => {
    const url = await own.createDatabase('wake_lease');
    const a = await replica(url);
    const b = await replica(url);
    const logger = createLogger('silent');
    const lease = (holder: string, store: Store) => ({ store, name: 'poller:mail', holder, ttlMs: POLL_MS, retryMs: POLL_MS, logger });
    const stopA = new AbortController();
    const stopB = new AbortController();
    onTestFinished(() => stopB.abort());
    let aRuns = false;
    const aDone = runUnderLease(lease('a', a.store), stopA.signal, async (_hold, held) => {
      aRuns = true;
      await new Promise((r) => held.addEventListener('abort', r, { once: true }));
    });
    await until(() => aRuns, SOON_MS, 'A to hold the lease');
    let bRuns = false;
    let bWaits = false;
    const bDone = runUnderLease({ ...lease('b', b.store), onStandby: () => (bWaits = true) }, stopB.signal, async (_hold, held) => {
      bRuns = true;
      await new Promise((r) => held.addEventListener('abort', r, { once: true }));
    });
    await until(() => bWaits, SOON_MS, 'B to wait for the lease');
    stopA.abort(); // A stops: it gives the lease back
    await aDone;
    await until(() => bRuns, SOON_MS, 'B to take the lease given back');
    stopB.abort();
    await bDone;
  });

  it('after a database restart the listener connects again and one look finds the jobs queued meanwhile', { timeout: 60_000 }, async () => {
    const url = await own.createDatabase('wake_restart');
    // B connects as a role of its own, so it can be kept out after the restart while A queues.
    await superuser(url, async (c) => {
      await c.query(`create role tg_b login password 'b'`);
      await c.query('grant all on schema public to tg_b');
    });
    const a = await replica(url);
    await superuser(url, async (c) => {
      await c.query('grant all on all tables in schema public to tg_b');
      await c.query('grant all on all sequences in schema public to tg_b');
    });
    const asB = new URL(url);
    asB.username = 'tg_b';
    asB.password = 'b';
    const b = await replica(asB.toString(), { migrate: false });
    b.runner.start();
    const looked = looks(b.told);
    await superuser(url, (c) => c.query('alter role tg_b connection limit 0')); // its open connections stay
    await own.kill();
    await own.start();
    // Nobody listens on B's side: this job's notification reaches no one. (A's pool finds its connections gone first.)
    await until(async () => a.store.write((tx) => a.queue.enqueue(tx, { kind: 'send', payload: 'meanwhile' })).then(() => true, () => false), 10_000, 'A to queue after the restart');
    await new Promise((r) => setTimeout(r, 500));
    expect(b.ran).not.toContain('meanwhile');
    expect(looks(b.told)).toBe(looked);
    await superuser(url, (c) => c.query('alter role tg_b connection limit -1'));
    await until(() => b.ran.includes('meanwhile'), 15_000, 'B to find the job queued while it could not listen');
    expect(looks(b.told)).toBe(looked + 1);
    // Listening again: the next job wakes it at once.
    await a.store.write((tx) => a.queue.enqueue(tx, { kind: 'send', payload: 'after' }));
    await until(() => b.ran.includes('after'), SOON_MS, 'B to run the job queued after it listens again');
  });
});
