/**
 * Group commit on the PostgreSQL store (src/store/postgres/pg-group-writer.ts):
 * the writes asked for in one event-loop turn share one transaction; one that
 * throws fails alone while the others commit, as does one that caught its
 * own failed statement (no false success); `write_connections: 0` gives
 * every write a transaction of its own; and the setting cannot take more
 * connections than the pool has. Writes that are not urgent keep one group
 * open at a time for their batch name unless a full group of them waits;
 * urgent ones (a webhook's) open groups beside it. A group's transaction
 * begins with the plan settings its merged statements need; a lone write
 * keeps the defaults.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { loadSettings } from '../../src/config/load.ts';
import { DEFAULT_PG_MAX_GROUP } from '../../src/store/postgres/pg-group-writer.ts';
import { openPostgresStore } from '../../src/store/postgres/pg-store.ts';
import type { Repos } from '../../src/store/repos.ts';
import type { Store, WriteOptions } from '../../src/store/store.ts';
import { runCliAsync } from '../support/cli.ts';
import { postgresDatabase } from '../support/postgres.ts';
import { tempDir } from '../support/temp-dir.ts';

async function open(writeConnections?: number): Promise<Store> {
  const store = await openPostgresStore({ url: await postgresDatabase(), poolSize: 5, ...(writeConnections === undefined ? {} : { writeConnections }) });
  onTestFinished(() => store.close());
  return store;
}

/** Writes asked for in one turn, each setting a state key and answering the id of the transaction it ran in. */
function burst(store: Store, keys: readonly string[], failing?: string): Promise<PromiseSettledResult<string>[]> {
  return Promise.allSettled(
    keys.map((key) =>
      store.write(async (tx) => {
        await tx.state.set('c', key, key, Date.now());
        if (key === failing) throw new Error(`${key} refused`);
        return (await tx.sql.get<{ id: string }>('select txid_current()::text as id'))!.id;
      }),
    ),
  );
}

/** The id of the transaction a write runs in. */
const txid = async (tx: Repos): Promise<string> => (await tx.sql.get<{ id: string }>('select txid_current()::text as id'))!.id;

/** A write (`options`) whose group stays open until `release` is called: resolves once it runs. */
async function heldOpen(store: Store, options: WriteOptions): Promise<{ txid: Promise<string>; release: () => void }> {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  onTestFinished(() => release()); // a failed test must not leave the store waiting for it
  let began!: () => void;
  const running = new Promise<void>((resolve) => (began = resolve));
  const id = store.write(async (tx) => {
    const id = await txid(tx);
    began();
    await gate;
    return id;
  }, options);
  await running;
  return { txid: id, release };
}

/** Whether `writes` all settled within 100 ms. */
async function settleSoon(writes: readonly Promise<unknown>[]): Promise<boolean> {
  let settled = false;
  void Promise.allSettled(writes).then(() => (settled = true));
  await new Promise((resolve) => setTimeout(resolve, 100));
  return settled;
}

const values = (results: PromiseSettledResult<string>[]) => results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message));

describe('PostgreSQL store: group commit', () => {
  it('commits the writes asked for in one turn in one transaction, and answers each after it', async () => {
    const store = await open();
    const keys = Array.from({ length: 12 }, (_, i) => `k${i}`);
    const txids = values(await burst(store, keys));
    // With four connections the first group takes the whole turn's writes.
    expect(new Set(txids).size).toBe(1);
    for (const key of keys) expect(await store.read.state.get('c', key)).toBe(key);
  });

  it('keeps one group of a batch open at a time: its writes that come meanwhile wait and share the next; other writes go on', async () => {
    const store = await open();
    const first = await heldOpen(store, { batch: 'b' });
    const later = ['x', 'y', 'z'].map(() => store.write(txid, { batch: 'b' }));
    // Writes of another batch, and of none, open groups of their own while the first is open.
    const [other, none] = await Promise.all([store.write(txid, { batch: 'c' }), store.write(txid)]);
    expect(await settleSoon(later)).toBe(false);
    first.release();
    const ids = await Promise.all(later);
    expect(new Set(ids).size).toBe(1);
    expect(new Set([await first.txid, other, none, ids[0]]).size).toBe(4);
  });

  it('keeps one group of the writes of no batch open at a time too', async () => {
    const store = await open();
    const first = await heldOpen(store, {});
    const later = [store.write(txid), store.write(txid)];
    expect(await settleSoon(later)).toBe(false);
    first.release();
    const ids = await Promise.all(later);
    expect(new Set([await first.txid, ...ids]).size).toBe(2);
  });

  it('opens another group of a batch beside its open one when a full group of it waits', async () => {
    const store = await open();
    const first = await heldOpen(store, { batch: 'b' });
    const ids = await Promise.all(Array.from({ length: DEFAULT_PG_MAX_GROUP }, () => store.write(txid, { batch: 'b' })));
    expect(new Set(ids).size).toBe(1);
    first.release();
    expect(await first.txid).not.toBe(ids[0]);
  });

  it('opens a group of urgent writes beside an open group of their batch', async () => {
    const store = await open();
    const first = await heldOpen(store, { batch: 'u', urgent: true });
    const ids = await Promise.all(['x', 'y'].map(() => store.write(txid, { batch: 'u', urgent: true })));
    expect(new Set(ids).size).toBe(1);
    first.release();
    expect(await first.txid).not.toBe(ids[0]);
  });

  it('fails a write that throws alone: its caller gets its error, its neighbours commit, each in a transaction of its own', async () => {
    const store = await open();
    const results = await burst(store, ['a', 'b', 'c', 'd'], 'b');
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    expect(values(results)[1]).toBe('b refused');
    // The group was rolled back and its writes ran again one by one.
    const txids = values(results).filter((_, i) => i !== 1);
    expect(new Set(txids).size).toBe(3);
    expect(await store.read.state.get('c', 'a')).toBe('a');
    expect(await store.read.state.get('c', 'b')).toBeUndefined();
    expect(await store.read.state.get('c', 'd')).toBe('d');
  });

  it('refuses a write that caught its own failed statement (its transaction was aborted) and still commits its neighbour', async () => {
    const store = await open();
    const [swallowed, neighbour] = await Promise.allSettled([
      store.write(async (tx) => {
        await tx.state.set('c', 'swallowed', 1, Date.now());
        await tx.sql.get('select 1 / 0 as n').catch(() => undefined); // division by zero, caught
        return 'went on';
      }),
      store.write(async (tx) => {
        await tx.state.set('c', 'neighbour', 2, Date.now());
        return 'stored';
      }),
    ]);
    expect(swallowed.status).toBe('rejected');
    expect((swallowed as PromiseRejectedResult).reason).toMatchObject({ code: 'TG_STORE_TX_ABORTED' });
    expect(neighbour).toEqual({ status: 'fulfilled', value: 'stored' });
    expect(await store.read.state.get('c', 'swallowed')).toBeUndefined();
    expect(await store.read.state.get('c', 'neighbour')).toBe(2);
  });

  it("plans a group's statements as merged ones need from its BEGIN on; a lone write keeps the server's defaults", async () => {
    const store = await open();
    const settings = `select current_setting('enable_seqscan') || ' ' || current_setting('plan_cache_mode') as s`;
    const inGroup = await Promise.all(['a', 'b', 'c'].map(() => store.write(async (tx) => (await tx.sql.get<{ s: string }>(settings))!.s)));
    expect(inGroup).toEqual(['off force_generic_plan', 'off force_generic_plan', 'off force_generic_plan']);
    expect(await store.write(async (tx) => (await tx.sql.get<{ s: string }>(settings))!.s)).toBe('on auto');
    // `set local`: the settings end with their transaction, and the pool's connections serve reads with the defaults.
    const reads = await Promise.all(Array.from({ length: 5 }, () => store.read.sql.get<{ s: string }>(settings)));
    expect(reads).toEqual(Array.from({ length: 5 }, () => ({ s: 'on auto' })));
  });

  it('gives every write a transaction of its own with write_connections 0', async () => {
    const store = await open(0);
    const txids = values(await burst(store, ['a', 'b', 'c', 'd', 'e']));
    expect(new Set(txids).size).toBe(5);
    for (const key of ['a', 'b', 'c', 'd', 'e']) expect(await store.read.state.get('c', key)).toBe(key);
  });

  it('needs no store.write_connections with a pool smaller than its default: the settings load, the writes commit', async () => {
    const file = join(tempDir(), 'threadgate.yaml');
    writeFileSync(file, 'store:\n  url: postgres://u:p@127.0.0.1:1/db\n  pool_size: 2\n');
    const { store: settings } = loadSettings({ path: file }).settings;
    expect(settings.pool_size).toBe(2);
    expect(settings.write_connections).toBeUndefined();
    const store = await openPostgresStore({ url: await postgresDatabase(), poolSize: 2 });
    onTestFinished(() => store.close());
    const keys = Array.from({ length: 6 }, (_, i) => `k${i}`);
    expect((await burst(store, keys)).map((r) => r.status)).toEqual(keys.map(() => 'fulfilled'));
    for (const key of keys) expect(await store.read.state.get('c', key)).toBe(key);
  });

  it('refuses store.write_connections above store.pool_size, naming the key', async () => {
    const file = join(tempDir(), 'threadgate.yaml');
    writeFileSync(file, 'store:\n  url: postgres://u:p@127.0.0.1:1/db\n  pool_size: 3\n  write_connections: 4\n');
    const check = await runCliAsync(['config', 'check', '--config', file]);
    expect(check.status).toBe(1);
    expect(check.stderr).toContain('store.write_connections: must not be more than pool_size');
  });
});
