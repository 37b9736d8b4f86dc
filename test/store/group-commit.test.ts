/**
 * Group commit on a real SQLite file: many writes share one transaction, each
 * caller is answered only after the COMMIT that holds its write, and one
 * failing write does not take its neighbours down with it.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it, onTestFinished } from 'vitest';
import { GroupCommitter } from '../../src/store/group-commit.ts';
import { tempDir } from '../support/temp-dir.ts';

function files() {
  const path = join(tempDir(), 'group.db');
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.exec('create table items (id integer primary key, name text not null unique)');
  // A second connection sees only what was committed.
  const reader = new Database(path, { readonly: true });
  onTestFinished(() => {
    reader.close();
    db.close();
  });
  const insert = db.prepare('insert into items (name) values (?) returning id');
  const count = reader.prepare('select count(*) as n from items');
  const committed = () => (count.get() as { n: number }).n;
  return { db, insert, committed, reader };
}

describe('group commit', () => {
  it('commits the writes of one event-loop turn in one transaction and answers after it', async () => {
    const { db, insert, committed } = files();
    const groups: number[] = [];
    const gc = new GroupCommitter(db, { onCommit: (size) => groups.push(size) });
    const seenAtAnswer: number[] = [];
    const writes = Array.from({ length: 100 }, (_, i) =>
      gc.write(() => (insert.get(`item-${i}`) as { id: number }).id).then((id) => {
        seenAtAnswer.push(committed());
        return id;
      }),
    );
    // Nothing is committed before the group ran.
    expect(committed()).toBe(0);
    const ids = await Promise.all(writes);
    expect(ids).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    expect(groups).toEqual([100]);
    // Every caller, when answered, could already see all 100 rows from another connection.
    expect(new Set(seenAtAnswer)).toEqual(new Set([100]));
  });

  it('isolates a failing write: its caller gets the error, its neighbours commit', async () => {
    const { db, insert, committed, reader } = files();
    const gc = new GroupCommitter(db);
    const results = await Promise.allSettled([
      gc.write(() => insert.get('a')),
      gc.write(() => {
        insert.get('half-written'); // stored, then the write fails: this row must be rolled back too
        insert.get('a'); // unique constraint
      }),
      gc.write(() => insert.get('b')),
      gc.write(() => {
        throw new Error('a bug in a write');
      }),
      gc.write(() => insert.get('c')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'rejected', 'fulfilled']);
    expect(String((results[1] as PromiseRejectedResult).reason)).toMatch(/UNIQUE constraint failed/);
    expect(String((results[3] as PromiseRejectedResult).reason)).toMatch(/a bug in a write/);
    expect(committed()).toBe(3);
    expect((reader.prepare('select name from items order by id').all() as { name: string }[]).map((r) => r.name)).toEqual(['a', 'b', 'c']);
  });

  it('refuses a write that returns a promise (it would hold the transaction open across other work), keeping its neighbours', async () => {
    const { db, insert, committed } = files();
    const gc = new GroupCommitter(db);
    const results = await Promise.allSettled([
      gc.write(() => insert.get('before')),
      gc.write(() => {
        insert.get('inside-async');
        return Promise.resolve(1);
      }),
      gc.write(() => insert.get('after')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ code: 'TG_STORE_WRITE_ASYNC' });
    expect(committed()).toBe(2);
  });

  it('splits a burst into groups of at most maxGroup, in order', async () => {
    const { db, insert } = files();
    const groups: number[] = [];
    const gc = new GroupCommitter(db, { maxGroup: 40, onCommit: (size) => groups.push(size) });
    const ids = await Promise.all(Array.from({ length: 100 }, (_, i) => gc.write(() => (insert.get(`n${i}`) as { id: number }).id)));
    expect(groups).toEqual([40, 40, 20]);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });

  it('rejects every write of a group whose transaction cannot begin, and stores none of them', async () => {
    const { db, insert, committed } = files();
    const gc = new GroupCommitter(db);
    db.exec('BEGIN'); // someone else's transaction is open on the connection: BEGIN IMMEDIATE fails
    const results = await Promise.allSettled([gc.write(() => insert.get('x')), gc.write(() => insert.get('y'))]);
    db.exec('ROLLBACK');
    expect(results.every((r) => r.status === 'rejected')).toBe(true);
    expect(committed()).toBe(0);
    // The committer is usable again afterwards.
    await gc.write(() => insert.get('z'));
    expect(committed()).toBe(1);
  });

  it('commits what is queued on close and refuses writes after it', async () => {
    const { db, insert, committed } = files();
    const gc = new GroupCommitter(db);
    const queued = gc.write(() => insert.get('last'));
    gc.close();
    expect(committed()).toBe(1); // committed by close itself, before any later turn
    await queued;
    expect(committed()).toBe(1);
    await expect(gc.write(() => insert.get('late'))).rejects.toMatchObject({ code: 'TG_STORE_CLOSED' });
  });
});
