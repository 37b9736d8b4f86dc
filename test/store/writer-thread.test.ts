/**
 * The SQLite store's writer thread: named writes (`store.command`) run on a
 * connection of their own in a worker, beside the main thread's writer, and
 * are answered after their commit — in the file's commit order together with
 * the main thread's writes; a failing one is rolled back alone and its error
 * keeps its code; a thread that dies refuses what waited, and the main
 * thread's writes go on.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { openStore, type Store } from '../../src/store/database.ts';
import { WriterThreadGoneError, WriterThreadWriteError } from '../../src/store/errors.ts';
import { tempDir } from '../support/temp-dir.ts';
import { END_THREAD, INSERT_JOB, INSERT_THEN_FAIL } from '../support/write-commands.ts';

const COMMANDS = new URL('../support/write-commands.ts', import.meta.url).href;

function openWithThread(onGone?: (err: Error) => void): { store: Store; path: string } {
  const path = join(tempDir(), 'store.db');
  const store = openStore({ path, writerThread: { commandsUrl: COMMANDS, ...(onGone ? { onGone } : {}) } });
  return { store, path };
}

const insertOnMain = (store: Store, kind: string) => store.write((tx) => tx.jobs.insert({ kind, payload: '{}', orderKey: null, maxAttempts: 3, retryForMs: 60_000, giveUpAt: Date.now() + 60_000, runAt: Date.now() }, Date.now()));

describe('the SQLite writer thread', () => {
  it('runs named writes on its own connection and answers after their commit', async () => {
    const { store, path } = openWithThread();
    try {
      const ids = await Promise.all(['a', 'b', 'c'].map((kind) => store.command(INSERT_JOB, { kind })));
      expect(new Set(ids).size).toBe(3);
      for (const [i, id] of ids.entries()) expect(await store.read.jobs.get(id)).toMatchObject({ kind: ['a', 'b', 'c'][i], status: 'queued' });
      // Written by another connection than the main thread's writer: the file has them, fsynced or not, for anyone.
      const other = new Database(path, { readonly: true });
      expect((other.prepare('select count(*) as n from jobs').get() as { n: number }).n).toBe(3);
      other.close();
    } finally {
      await store.close();
    }
  });

  it('answers the main thread\'s writes and its own in the order they committed', async () => {
    const { store } = openWithThread();
    try {
      const heard: number[] = [];
      const writes: Promise<number>[] = [];
      for (let round = 0; round < 40; round++) {
        for (let i = 0; i < 5; i++) writes.push(store.command(INSERT_JOB, { kind: `thread-${round}` }).then((id) => (heard.push(id), id)));
        for (let i = 0; i < 3; i++) writes.push(insertOnMain(store, `main-${round}`).then((id) => (heard.push(id), id)));
        if (round % 4 === 0) await new Promise((r) => setImmediate(r));
      }
      const ids = await Promise.all(writes);
      expect(heard).toHaveLength(320);
      // Ids grow with the commit order (one writer at a time); the answers came in that order.
      expect(heard).toEqual([...ids].sort((x, y) => x - y));
      const kinds = await Promise.all(ids.map(async (id) => (await store.read.jobs.get(id))?.kind.split('-')[0]));
      expect(new Set(kinds)).toEqual(new Set(['thread', 'main']));
    } finally {
      await store.close();
    }
  });

  it('rolls a failing write back alone; its error keeps its code and message', async () => {
    const { store, path } = openWithThread();
    try {
      const results = await Promise.allSettled([
        store.command(INSERT_JOB, { kind: 'before' }),
        store.command(INSERT_THEN_FAIL, { kind: 'doomed' }),
        store.command(INSERT_JOB, { kind: 'after' }),
        store.command({ name: 'test.nobody', run: async () => 0 }, {}),
      ]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'rejected']);
      const failed = (results[1] as PromiseRejectedResult).reason as WriterThreadWriteError;
      expect(failed).toBeInstanceOf(WriterThreadWriteError);
      expect(failed).toMatchObject({ code: 'TG_TEST_REFUSED', message: 'doomed refused' });
      expect(((results[3] as PromiseRejectedResult).reason as Error).message).toBe('no write command named "test.nobody"');
      const db = new Database(path, { readonly: true });
      expect(db.prepare('select kind from jobs order by id').all()).toEqual([{ kind: 'before' }, { kind: 'after' }]);
      db.close();
    } finally {
      await store.close();
    }
  });

  it('commits the writes still waiting when the store closes', async () => {
    const { store, path } = openWithThread();
    const writes = Array.from({ length: 30 }, (_, i) => store.command(INSERT_JOB, { kind: `k${i}` }));
    await store.close();
    expect((await Promise.all(writes)).length).toBe(30);
    const db = new Database(path, { readonly: true });
    expect((db.prepare('select count(*) as n from jobs').get() as { n: number }).n).toBe(30);
    db.close();
    await expect(store.command(INSERT_JOB, { kind: 'late' })).rejects.toMatchObject({ code: 'TG_STORE_CLOSED' });
  });

  it('refuses what waited when the thread dies; the main thread\'s writes go on', async () => {
    const gone: Error[] = [];
    const { store, path } = openWithThread((err) => gone.push(err));
    try {
      await store.command(INSERT_JOB, { kind: 'first' });
      const dying = store.command(END_THREAD, {});
      await expect(dying).rejects.toBeInstanceOf(WriterThreadGoneError);
      expect(gone).toHaveLength(1);
      await expect(store.command(INSERT_JOB, { kind: 'refused' })).rejects.toMatchObject({ code: 'TG_STORE_WRITER_GONE' });
      const id = await insertOnMain(store, 'main-after');
      expect((await store.read.jobs.get(id))?.kind).toBe('main-after');
      const db = new Database(path, { readonly: true });
      expect(db.prepare('select kind from jobs order by id').all()).toEqual([{ kind: 'first' }, { kind: 'main-after' }]);
      db.close();
    } finally {
      await store.close();
    }
  });
});
