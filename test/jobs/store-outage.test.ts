/**
 * Jobs across a PostgreSQL outage (the server stopped hard and started again,
 * as a crash or a failover does): a job that did its work and could not
 * record it records it once the database is back — it does not run again
 * after its lease — and a job whose handler failed because the store was
 * away uses no try and is run again, ahead of the jobs of its order key
 * queued after it.
 */
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { JobQueue } from '../../src/jobs/queue.ts';
import { JobRunner } from '../../src/jobs/runner.ts';
import { createLogger } from '../../src/log/logger.ts';
import { openPostgresStore } from '../../src/store/postgres/pg-store.ts';
import { startPostgres, type RunningPostgres } from '../support/postgres-server.ts';
import { sleep, until } from '../support/wait.ts';

// A cluster of its own: the run's shared one must not go down under other test files.
let own: RunningPostgres;
beforeAll(async () => {
  own = await startPostgres();
}, 60_000);
afterAll(() => own?.stop());

async function setup(name: string) {
  const store = await openPostgresStore({ url: await own.createDatabase(name), poolSize: 3, onIdleError: () => {} });
  const queue = new JobQueue(store, { backoff: { baseMs: 20, maxMs: 40 } });
  const runner = new JobRunner(queue, { logger: createLogger('silent'), pollMs: 50 });
  onTestFinished(async () => {
    await runner.stop(100);
    await store.close();
  });
  return { store, queue, runner };
}

describe('jobs across a database restart', () => {
  it('a job done while the database is away is recorded once it is back, and not run again', { timeout: 60_000 }, async () => {
    const { store, queue, runner } = await setup('outage_done');
    let runs = 0;
    let finish!: () => void;
    const held = new Promise<void>((resolve) => (finish = resolve));
    // A lease longer than the outage (as the default 30 s is longer than a restart): without the retry of its outcome,
    // the job would be left to it and run again once it ran out.
    runner.register('send', { leaseMs: 4_000, handler: async () => void (runs++, await held) });
    const id = await store.write((tx) => queue.enqueue(tx, { kind: 'send', payload: {} }));
    runner.start();
    runner.notify('send');
    await until(async () => runs === 1, 5_000, 'the job to start');
    await own.kill();
    finish(); // the work is done while the database is down
    await sleep(1_500);
    await own.start();
    await until(async () => (await queue.get(id).catch(() => undefined))?.status === 'done', 20_000, 'the job recorded done');
    await sleep(5_000); // past the lease
    expect(runs).toBe(1);
    expect((await queue.get(id))?.attempts).toBe(1);
  });

  it('a handler that failed because the store was away uses no try and runs again before its key\'s next job', { timeout: 60_000 }, async () => {
    const { store, queue, runner } = await setup('outage_failed');
    const order: string[] = [];
    let firstRun = true;
    runner.register<string>('post', {
      handler: async (name) => {
        if (name === 'a' && firstRun) {
          firstRun = false;
          await own.kill();
          await queue.get(0); // the store is away: StoreUnavailableError
        }
        order.push(name);
      },
    });
    const a = await store.write((tx) => queue.enqueue(tx, { kind: 'post', payload: 'a', orderKey: 'thread:1' }));
    await store.write((tx) => queue.enqueue(tx, { kind: 'post', payload: 'b', orderKey: 'thread:1' }));
    runner.start();
    runner.notify('post');
    await until(async () => !firstRun, 5_000, 'the first run of a');
    await sleep(1_000);
    await own.start();
    await until(async () => order.length === 2, 20_000, 'both jobs run');
    expect(order).toEqual(['a', 'b']);
    const job = await queue.get(a);
    expect(job?.status).toBe('done');
    expect(job?.attempts).toBe(1);
  });
});
