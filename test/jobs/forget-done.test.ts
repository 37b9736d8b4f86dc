/**
 * Kinds that forget their done jobs (job-kind-options.ts `forgetDone`: a
 * webhook's delivery, whose record is the delivery log): the completion
 * deletes the row in the write that records the outcome, only while the
 * completing run still holds the job, and a group of completions may mix
 * such jobs with kept ones. Both backends.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { JobQueue } from '../../src/jobs/queue.ts';
import { JobRunner } from '../../src/jobs/runner.ts';
import { createLogger } from '../../src/log/logger.ts';
import type { Store } from '../../src/store/database.ts';
import { openTestStore, STORE_BACKENDS } from '../support/store-backends.ts';
import { until } from '../support/wait.ts';

interface Row {
  id: number;
  status: string;
  lease_owner: string | null;
  finished_at: number | null;
}

const rowsOf = (store: Store): Promise<Row[]> => store.read.sql.all<Row>('select id, status, lease_owner, finished_at from jobs order by id');

describe.each(STORE_BACKENDS)('done jobs forgotten, on the %s store', (backend) => {
  it('deletes a forgotten job and keeps the others done, completed side by side in one group', async () => {
    const { store } = await openTestStore(backend);
    const queue = new JobQueue(store);
    const ids = await store.write(async (tx) => Promise.all([1, 2, 3, 4].map((n) => queue.enqueue(tx, { kind: 'k', payload: n }))));
    expect(await queue.claim('k', 'w', 60_000, 4)).toHaveLength(4);
    // Asked for in one turn: one group, and on PostgreSQL one statement for the four.
    await Promise.all(ids.map((id, i) => queue.completeWith(id, 'w', undefined, i % 2 === 0)));
    const rows = await rowsOf(store);
    expect(rows.map((r) => r.id)).toEqual([ids[1], ids[3]]);
    expect(rows.every((r) => r.status === 'done' && r.lease_owner === null && r.finished_at !== null)).toBe(true);
    expect(await queue.countByStatus()).toMatchObject({ queued: 0, running: 0, done: 2 });
  });

  it('deletes nothing for a run whose lease moved on: it is told so, and its neighbours in the group are completed', async () => {
    const { store } = await openTestStore(backend);
    const queue = new JobQueue(store);
    const [lost, kept, gone] = await store.write(async (tx) => Promise.all(['lost', 'kept', 'gone'].map((p) => queue.enqueue(tx, { kind: 'k', payload: p }))));
    expect(await queue.claim('k', 'r1', 60_000, 3)).toHaveLength(3);
    // The first run's lease ran out and another replica took the job.
    await store.write((tx) => tx.sql.run('update jobs set lease_until = ? where id = ?', [Date.now() - 1, lost!]));
    expect((await queue.claim('k', 'r2', 60_000, 3)).map((j) => j.id)).toEqual([lost]);

    const results = await Promise.allSettled([
      queue.completeWith(lost!, 'r1', undefined, true),
      queue.completeWith(kept!, 'r1', undefined, false),
      queue.completeWith(gone!, 'r1', undefined, true),
    ]);
    expect(results[0]).toMatchObject({ status: 'rejected', reason: { code: 'TG_JOB_LEASE_LOST' } });
    expect(results.slice(1).map((r) => r.status)).toEqual(['fulfilled', 'fulfilled']);
    const rows = await rowsOf(store);
    expect(rows.map((r) => [r.id, r.status, r.lease_owner])).toEqual([
      [lost, 'running', 'r2'],
      [kept, 'done', null],
    ]);
    // The holder completes it: now it goes.
    await expect(queue.completeWith(lost!, 'r2', undefined, true)).resolves.toBe(true);
    expect((await rowsOf(store)).map((r) => r.id)).toEqual([kept]);
  });

  it('the runner deletes the done jobs of a kind that forgets them, and keeps its failed ones and other kinds’ done ones', async () => {
    const { store } = await openTestStore(backend);
    const queue = new JobQueue(store, { backoff: { baseMs: 20, maxMs: 40 } });
    const runner = new JobRunner(queue, { logger: createLogger('silent'), pollMs: 5_000 });
    onTestFinished(() => runner.stop(100));
    const ran: string[] = [];
    runner.register<string>('forgotten', {
      forgetDone: true,
      handler: async (p) => {
        ran.push(p);
        if (p === 'fails') throw Object.assign(new Error('refused for good'), { permanent: true });
      },
    });
    runner.register<string>('kept', { handler: async (p) => void ran.push(p) });
    runner.start();
    await store.write(async (tx) => {
      await queue.enqueue(tx, { kind: 'forgotten', payload: 'works' });
      await queue.enqueue(tx, { kind: 'forgotten', payload: 'fails', maxAttempts: 1 });
      await queue.enqueue(tx, { kind: 'kept', payload: 'kept' });
    });
    runner.notify('forgotten');
    runner.notify('kept');
    await until(async () => (await rowsOf(store)).every((r) => r.status === 'done' || r.status === 'dead') && ran.length === 3, 5_000, 'the three jobs ran');
    const rows = await store.read.sql.all<{ kind: string; status: string }>('select kind, status from jobs order by id');
    expect(rows).toEqual([
      { kind: 'forgotten', status: 'dead' },
      { kind: 'kept', status: 'done' },
    ]);
  });
});
