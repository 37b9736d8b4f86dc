/**
 * `synchronous: full` on a file store (src/store/sqlite/wal-sync.ts): the
 * writer commits at NORMAL and the store fdatasyncs the write-ahead log after
 * each group, in libuv's pool; nobody is answered before that sync returned.
 * Seen by wrapping node:fs's `fdatasync` (the builtin's ESM bindings follow
 * via `syncBuiltinESMExports`) and holding its callback.
 */
import fs, { readlinkSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { openStore } from '../../src/store/database.ts';
import { tempDir } from '../support/temp-dir.ts';

/** Every async fdatasync from now on: the file it synced; each callback held until `release()`. */
function holdSyncs() {
  const original = fs.fdatasync;
  const files: string[] = [];
  const held: (() => void)[] = [];
  let holding = true;
  fs.fdatasync = ((fd: number, callback: (err: NodeJS.ErrnoException | null) => void) => {
    files.push(readlinkSync(`/proc/self/fd/${fd}`));
    original(fd, (err) => (holding ? held.push(() => callback(err)) : callback(err)));
  }) as typeof fs.fdatasync;
  syncBuiltinESMExports();
  const release = () => {
    holding = false;
    for (const done of held.splice(0)) done();
  };
  onTestFinished(() => {
    release();
    fs.fdatasync = original;
    syncBuiltinESMExports();
  });
  return { files, held: () => held.length, release };
}

const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe('the log sync of a file store', () => {
  it('answers a write only after the group was committed and its log fdatasynced', async () => {
    const path = join(tempDir(), 'sync.db');
    const store = openStore({ path });
    onTestFinished(() => store.close());
    await store.write((tx) => tx.sql.run('create table items (id integer primary key, name text not null)'));
    const syncs = holdSyncs();

    let answered = false;
    const writing = store.write((tx) => tx.sql.run(`insert into items (name) values ('kept')`)).then(() => (answered = true));
    await vi.waitFor(() => expect(syncs.held()).toBe(1));
    await turns(5);
    expect(syncs.files).toEqual([`${path}-wal`]);
    expect(answered).toBe(false);
    // Committed (a reader sees it), but not yet answered: only the sync is missing.
    expect(await store.read.sql.all('select name from items')).toEqual([{ name: 'kept' }]);

    syncs.release();
    await writing;
    expect(answered).toBe(true);
  });

  it('syncs once a group, however many writes it holds', async () => {
    const store = openStore({ path: join(tempDir(), 'group.db') });
    onTestFinished(() => store.close());
    await store.write((tx) => tx.sql.run('create table items (id integer primary key, name text not null)'));
    const syncs = holdSyncs();
    syncs.release();
    await Promise.all(Array.from({ length: 20 }, (_, i) => store.write((tx) => tx.sql.run('insert into items (name) values (?)', [`n${i}`]))));
    expect(syncs.files).toHaveLength(1);
  });

  it('leaves the sync to SQLite at `synchronous: normal`', async () => {
    const store = openStore({ path: join(tempDir(), 'normal.db'), synchronous: 'normal' });
    onTestFinished(() => store.close());
    const syncs = holdSyncs();
    await store.write((tx) => tx.sql.run('create table items (id integer primary key, name text not null)'));
    await store.write((tx) => tx.sql.run(`insert into items (name) values ('x')`));
    expect(syncs.files).toEqual([]);
  });
});
