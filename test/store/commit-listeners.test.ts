/**
 * A write's commit listeners (`tx.afterCommit`), on both backends: told true
 * once the COMMIT that holds the write returned — its rows readable by anyone
 * — and before the write's caller is answered; told false when the write was
 * rolled back, while its neighbours' are told true; in the order the writes
 * of a group ran. On SQLite also: a group whose COMMIT or fsync fails tells every write
 * false.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { GroupCommitter } from '../../src/store/group-commit.ts';
import { SqliteSql } from '../../src/store/sqlite/sqlite-sql.ts';
import type { TxSql } from '../../src/store/tx-sql.ts';
import type { Store } from '../../src/store/store.ts';
import { openTestStore, STORE_BACKENDS } from '../support/store-backends.ts';
import { tempDir } from '../support/temp-dir.ts';

const job = (kind: string) => ({ kind, payload: '{}', orderKey: null, maxAttempts: 3, retryForMs: 60_000, giveUpAt: Date.now() + 60_000, runAt: Date.now() });

/** Inserts a job of `kind` and records, in `told`, what its listener heard and whether the row was then readable. */
function insertWithListener(store: Store, kind: string, told: string[], fail = false): Promise<number> {
  return store.write(async (tx) => {
    const id = await tx.jobs.insert(job(kind), Date.now());
    tx.afterCommit((committed) => told.push(`${kind}:${committed}`));
    if (fail) throw new Error(`${kind} refused`);
    return id;
  });
}

describe.each(STORE_BACKENDS)('commit listeners on the %s store', (backend) => {
  it('are told after the COMMIT, before the caller is answered, and in the order the writes ran', async () => {
    const { store } = await openTestStore(backend);
    const told: string[] = [];
    const answered: string[] = [];
    const writes = ['a', 'b', 'c'].map((kind) => insertWithListener(store, kind, told).then((id) => answered.push(`${kind}:${told.includes(`${kind}:true`)}`) && id));
    const ids = await Promise.all(writes);
    // Both backends run the writes of one turn one after another in one transaction (PostgreSQL: on one of its
    // write connections).
    expect(told).toEqual(['a:true', 'b:true', 'c:true']);
    expect(answered.sort()).toEqual(['a:true', 'b:true', 'c:true']);
    for (const id of ids) expect((await store.read.jobs.get(id))?.status).toBe('queued');
  });

  it('tell a rolled-back write false and its neighbours true', async () => {
    const { store } = await openTestStore(backend);
    const told: string[] = [];
    const results = await Promise.allSettled([insertWithListener(store, 'kept', told), insertWithListener(store, 'refused', told, true), insertWithListener(store, 'also-kept', told)]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    // The failed write is told once. A neighbour's run that was rolled back with it (SQLite runs the others of the
    // group again) is told false first: the last word each write's listeners hear is its fate.
    expect(told.filter((t) => t.startsWith('refused:'))).toEqual(['refused:false']);
    const last = Object.fromEntries(told.map((t) => t.split(':')));
    expect(last).toEqual({ kept: 'true', refused: 'false', 'also-kept': 'true' });
  });

  it('see the committed rows when told', async () => {
    const { store } = await openTestStore(backend);
    let seen: Promise<string | undefined> | undefined;
    const id = await store.write(async (tx) => {
      const inserted = await tx.jobs.insert(job('visible'), Date.now());
      tx.afterCommit(() => (seen = store.read.jobs.get(inserted).then((row) => row?.kind)));
      return inserted;
    });
    expect(id).toBeGreaterThan(0);
    expect(await seen).toBe('visible');
  });

  it('are for writes only', async () => {
    const { store } = await openTestStore(backend);
    expect(() => store.read.afterCommit(() => {})).toThrow(TypeError);
  });
});

describe('commit listeners when a group cannot be made durable (SQLite)', () => {
  it('tell every write of the group false, and its callers get the error', async () => {
    const db = new Database(join(tempDir(), 'sync-fails.db'));
    db.pragma('journal_mode = WAL');
    db.exec('create table items (id integer primary key, name text not null)');
    // The WAL's fsync failing: the group is committed but not known to be on disk, so nobody may be told it is stored.
    const gc = new GroupCommitter(db, new SqliteSql(db), { sync: () => Promise.reject(new Error('EIO: the disk went away')) });
    const told: string[] = [];
    const results = await Promise.allSettled(
      ['x', 'y'].map((name) =>
        gc.write(async (tx) => {
          (tx as TxSql).afterCommit((committed) => told.push(`${name}:${committed}`));
          await tx.run('insert into items (name) values (?)', [name]);
        }),
      ),
    );
    expect(results.map((r) => (r.status === 'rejected' ? (r.reason as Error).message : 'fulfilled'))).toEqual(['EIO: the disk went away', 'EIO: the disk went away']);
    expect(told.sort()).toEqual(['x:false', 'y:false']);
    db.close();
  });
});
