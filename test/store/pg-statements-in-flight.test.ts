/**
 * Statements a write issues without awaiting each other, on the PostgreSQL
 * store: its connections run in pipeline mode (pg-store.ts), so they go out
 * back to back and are answered in the order issued — a claim opens all its
 * jobs' attempts at once, a job's outcome and its completion travel together.
 * Each statement gets its own answer; one that fails fails its write alone
 * and leaves nothing of that write stored; the connection goes on serving
 * the next writes; and the driver is not asked to queue queries on a busy
 * connection (which it warns about as deprecated). With prepared statements
 * and without them (`store.prepared_statements: false`, for poolers).
 */
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { openPostgresStore } from '../../src/store/postgres/pg-store.ts';
import type { Store } from '../../src/store/store.ts';
import { jobRow } from '../support/job-rows.ts';
import { postgresDatabase } from '../support/postgres.ts';

async function open(preparedStatements: boolean): Promise<Store> {
  // One connection: every write and read shares it, so a statement left unanswered would hold up all that follow.
  const store = await openPostgresStore({ url: await postgresDatabase(), poolSize: 1, preparedStatements });
  onTestFinished(() => store.close());
  return store;
}

const warnings: Error[] = [];
const onWarning = (w: Error) => void warnings.push(w);
beforeEach(() => {
  warnings.length = 0;
  process.on('warning', onWarning);
});
afterEach(() => void process.off('warning', onWarning));

// Prepared once per connection (the default), and unnamed, parsed at every run (store.prepared_statements: false).
describe.each([true, false])('PostgreSQL store: statements in flight together (prepared statements: %s)', (prepared) => {
  it('answers each of the statements a write issues at once with its own result, run in the order issued', async () => {
    const store = await open(prepared);
    const now = Date.now();
    const { ids, answers } = await store.write(async (tx) => {
      const inserted = Promise.all(Array.from({ length: 20 }, (_, i) => tx.jobs.insert(jobRow(`key-${i}`, now), now)));
      const read = Promise.all([tx.sql.get<{ n: number }>('select 1 as n'), tx.sql.get<{ s: string }>("select 'two' as s"), tx.sql.all<{ n: number }>('select generate_series(1, 3) as n')]);
      return { ids: await inserted, answers: await read };
    });
    expect(answers).toEqual([{ n: 1 }, { s: 'two' }, [{ n: 1 }, { n: 2 }, { n: 3 }]]);
    // The ids come from the sequence in the order the inserts ran: the order they were issued in.
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    const rows = await store.read.sql.all<{ id: number; order_key: string }>('select id, order_key from jobs order by id');
    expect(rows.map((r) => r.order_key)).toEqual(Array.from({ length: 20 }, (_, i) => `key-${i}`));
    expect(rows.map((r) => r.id)).toEqual(ids);
    expect(warnings.map((w) => w.message)).toEqual([]);
  });

  it('fails a write whose statement among several at once fails: nothing of it is stored, its neighbour in the group commits, the connection serves on', async () => {
    const store = await open(prepared);
    const now = Date.now();
    const [failed, neighbour] = await Promise.allSettled([
      store.write((tx) =>
        Promise.all([
          tx.jobs.insert(jobRow('before', now), now),
          tx.sql.get('select 1 / 0 as n'), // division by zero
          tx.jobs.insert(jobRow('after', now), now),
        ]),
      ),
      store.write((tx) => tx.jobs.insert(jobRow('neighbour', now), now)),
    ]);
    expect(failed.status).toBe('rejected');
    expect((failed as PromiseRejectedResult).reason).toMatchObject({ code: '22012' });
    expect(neighbour.status).toBe('fulfilled');
    expect(await store.read.sql.all('select order_key from jobs order by id')).toEqual([{ order_key: 'neighbour' }]);
    // The one connection answers the next write and read as usual: nothing of the failed pipeline is left on it.
    await store.write((tx) => tx.state.set('c', 'next', 'stored', now));
    expect(await store.read.state.get('c', 'next')).toBe('stored');
    expect(warnings.map((w) => w.message)).toEqual([]);
  });
});
