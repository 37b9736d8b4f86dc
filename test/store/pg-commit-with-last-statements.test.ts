/**
 * A write that says it sent its last statement (`Repos.sent`) on the
 * PostgreSQL store: its group's COMMIT goes out behind those statements, one
 * round trip for both (pg-group-writer.ts, pg-store.ts). A statement that then
 * fails turns the COMMIT into a rollback and the group runs again alone; a
 * statement issued after `sent` is refused; and a write that fails on its own
 * after its COMMIT went out leaves what was stored stored, once, and runs no
 * write again.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { openPostgresStore } from '../../src/store/postgres/pg-store.ts';
import type { Repos } from '../../src/store/repos.ts';
import type { Store } from '../../src/store/store.ts';
import { postgresDatabase } from '../support/postgres.ts';

async function open(writeConnections = 4): Promise<Store> {
  const store = await openPostgresStore({ url: await postgresDatabase(), poolSize: 5, writeConnections, wakeups: false });
  onTestFinished(() => store.close());
  return store;
}

const NOW = 1_800_000_000_000;
const runs = new Map<string, number>();

/** A write of batch `batch` that sets `key` and says it sent its statements; counts its runs. */
function setting(store: Store, key: string, then?: (tx: Repos) => Promise<unknown>) {
  return store.write(
    async (tx) => {
      runs.set(key, (runs.get(key) ?? 0) + 1);
      const set = tx.state.set('c', key, key, NOW);
      tx.sent();
      await set;
      await then?.(tx);
      return key;
    },
    { batch: 'b' },
  );
}

const roundTripsOf = async (store: Store, work: () => Promise<unknown>) => {
  const before = store.roundTrips!();
  await work();
  return store.roundTrips!() - before;
};

describe('PostgreSQL store: a COMMIT sent with the last statements', () => {
  it('commits a group in the round trip of its last statements', async () => {
    const store = await open();
    const trips = await roundTripsOf(store, () => Promise.all(['a', 'b', 'c'].map((key) => setting(store, key))));
    // BEGIN, the three writes' statements and the COMMIT, sent together.
    expect(trips).toBe(1);
    for (const key of ['a', 'b', 'c']) expect(await store.read.state.get('c', key)).toBe(key);
    const alone = await roundTripsOf(store, () => store.write(async (tx) => {
      const set = tx.state.set('c', 'alone', 'alone', NOW);
      tx.sent();
      await set;
    }));
    expect(alone).toBe(1);
    expect(await store.read.state.get('c', 'alone')).toBe('alone');
  });

  it('rolls the group back when a statement sent with the COMMIT fails; the others are stored once, the one at fault gets its error', async () => {
    const store = await open();
    runs.clear();
    const failing = store.write(
      async (tx) => {
        const bad = tx.sql.run('insert into no_such_table values (1)');
        tx.sent();
        await bad;
      },
      { batch: 'b' },
    );
    const results = await Promise.allSettled([setting(store, 'x'), failing, setting(store, 'y')]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ code: '42P01' });
    expect([runs.get('x'), runs.get('y')]).toEqual([2, 2]); // rolled back once, then alone
    expect(await store.read.sql.get<{ n: number }>(`select count(*)::int as n from connector_state where key in ('x', 'y')`)).toEqual({ n: 2 });
  });

  it('refuses a statement after `sent`; what the COMMIT stored stays stored, once, and no write runs again', async () => {
    const store = await open();
    runs.clear();
    const late = setting(store, 'late', (tx) => tx.state.set('c', 'after', 'after', NOW));
    const results = await Promise.allSettled([setting(store, 'p'), late, setting(store, 'q')]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ code: 'TG_STORE_TX_ENDED' });
    expect([runs.get('p'), runs.get('late'), runs.get('q')]).toEqual([1, 1, 1]);
    for (const key of ['p', 'late', 'q']) expect(await store.read.state.get('c', key)).toBe(key);
    expect(await store.read.state.get('c', 'after')).toBeUndefined();
  });

  it('keeps a lone write that failed on its own after its COMMIT went out stored, its listeners told so', async () => {
    const store = await open();
    const told: boolean[] = [];
    const late = store.write(async (tx) => {
      tx.afterCommit((committed) => told.push(committed));
      const set = tx.state.set('c', 'lone', 'lone', NOW);
      tx.sent();
      await set;
      await tx.state.set('c', 'lone-after', 'after', NOW);
    });
    await expect(late).rejects.toMatchObject({ code: 'TG_STORE_TX_ENDED' });
    expect(told).toEqual([true]);
    expect(await store.read.state.get('c', 'lone')).toBe('lone');
    expect(await store.read.state.get('c', 'lone-after')).toBeUndefined();
  });
});
