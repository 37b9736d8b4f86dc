/**
 * Group commit on a real SQLite file: many writes share one transaction, each
 * caller is answered only after the COMMIT that holds its write, and one
 * failing write — also one that fails after an await — does not take its
 * neighbours down with it.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it, onTestFinished } from 'vitest';
import { GroupCommitter } from '../../src/store/group-commit.ts';
import type { Sql } from '../../src/store/sql.ts';
import { SqliteSql } from '../../src/store/sqlite/sqlite-sql.ts';
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
  const count = reader.prepare('select count(*) as n from items');
  const committed = () => (count.get() as { n: number }).n;
  const names = () => (reader.prepare('select name from items order by id').all() as { name: string }[]).map((r) => r.name);
  const committer = (options?: ConstructorParameters<typeof GroupCommitter>[2]) => new GroupCommitter(db, new SqliteSql(db), options);
  return { db, committed, names, committer };
}

const insert = async (tx: Sql, name: string) => (await tx.get<{ id: number }>('insert into items (name) values (?) returning id', [name]))!.id;

describe('group commit', () => {
  it('commits the writes of one event-loop turn in one transaction and answers after it', async () => {
    const { committed, committer } = files();
    const groups: number[] = [];
    const gc = committer({ onCommit: (size) => groups.push(size) });
    const seenAtAnswer: number[] = [];
    const writes = Array.from({ length: 100 }, (_, i) =>
      gc.write((tx) => insert(tx, `item-${i}`)).then((id) => {
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

  it('isolates a failing write, also one failing after an await: its caller gets the error, its neighbours commit', async () => {
    const { committed, names, committer } = files();
    const gc = committer();
    const results = await Promise.allSettled([
      gc.write((tx) => insert(tx, 'a')),
      gc.write(async (tx) => {
        await insert(tx, 'half-written'); // stored, then the write fails: this row must be rolled back too
        await insert(tx, 'a'); // unique constraint
      }),
      gc.write((tx) => insert(tx, 'b')),
      gc.write(() => {
        throw new Error('a bug in a write');
      }),
      gc.write(async (tx) => {
        await insert(tx, 'written-then-refused');
        await Promise.resolve();
        throw new Error('refused after an await');
      }),
      gc.write((tx) => insert(tx, 'c')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect(String((results[1] as PromiseRejectedResult).reason)).toMatch(/UNIQUE constraint failed/);
    expect(String((results[3] as PromiseRejectedResult).reason)).toMatch(/a bug in a write/);
    expect(String((results[4] as PromiseRejectedResult).reason)).toMatch(/refused after an await/);
    expect(committed()).toBe(3);
    expect(names()).toEqual(['a', 'b', 'c']);
  });

  it('runs each write of a group once when none fails; after a failure runs the writes before it again, and not the failed one', async () => {
    const { names, committer } = files();
    const gc = committer();
    const runs = [0, 0, 0, 0, 0];
    const counted = (i: number, work: (tx: Sql) => Promise<unknown>) => gc.write((tx) => {
      runs[i] = (runs[i] ?? 0) + 1;
      return work(tx);
    });
    await Promise.all([counted(0, (tx) => insert(tx, 'once-a')), counted(1, (tx) => insert(tx, 'once-b'))]);
    expect(runs.slice(0, 2)).toEqual([1, 1]);

    runs.fill(0);
    const results = await Promise.allSettled([
      counted(0, (tx) => insert(tx, 'p')),
      counted(1, (tx) => insert(tx, 'q')),
      counted(2, async (tx) => {
        await insert(tx, 'r');
        throw new Error('refused');
      }),
      counted(3, (tx) => insert(tx, 's')),
      counted(4, (tx) => insert(tx, 'p')), // the unique constraint, against a neighbour of its own group
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'rejected']);
    // The first run stopped at the failed write and was rolled back: the two before it ran again, in savepoints.
    expect(runs).toEqual([2, 2, 1, 1, 1]);
    expect(names()).toEqual(['once-a', 'once-b', 'p', 'q', 's']);
  });

  it('keeps a write that catches its own failed statement and goes on: the statement alone left nothing', async () => {
    const { names, committer } = files();
    const gc = committer();
    await gc.write((tx) => insert(tx, 'taken'));
    const outcome = await gc.write(async (tx) => {
      await insert(tx, 'before');
      // Its first row would be stored, its second breaks the unique constraint: SQLite undoes the whole statement.
      const refused = await tx.run(`insert into items (name) values ('half'), ('taken')`).then(() => false, () => true);
      await insert(tx, 'after');
      return refused;
    });
    expect(outcome).toBe(true);
    expect(names()).toEqual(['taken', 'before', 'after']);
  });

  it('refuses a transaction handle used after its write settled (work left behind would land in a later group)', async () => {
    const { names, committer } = files();
    const gc = committer();
    let kept: Sql | undefined;
    await gc.write(async (tx) => {
      kept = tx;
      await insert(tx, 'in-time');
    });
    await expect(insert(kept!, 'too-late')).rejects.toMatchObject({ code: 'TG_STORE_TX_ENDED' });
    await gc.write((tx) => insert(tx, 'next'));
    expect(names()).toEqual(['in-time', 'next']);
  });

  it('keeps a group that is still being written invisible to readers until its COMMIT', async () => {
    const { committed, committer } = files();
    const gc = committer();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let inside!: () => void;
    const started = new Promise<void>((r) => (inside = r));
    const slow = gc.write(async (tx) => {
      await insert(tx, 'first');
      inside();
      await gate; // a write that (wrongly) waits for something else holds its group open
      await insert(tx, 'second');
    });
    await started;
    expect(committed()).toBe(0);
    release();
    await slow;
    expect(committed()).toBe(2);
  });

  it('forms the next group from writes asked for while a group commits', async () => {
    const { committer } = files();
    const groups: number[] = [];
    const gc = committer({ onCommit: (size) => groups.push(size) });
    const first = Array.from({ length: 5 }, (_, i) => gc.write((tx) => insert(tx, `a${i}`)));
    // Asked for from inside the first group's run: they wait for the next group, not for another turn.
    const second: Promise<number>[] = [];
    first.push(gc.write(async (tx) => {
      for (let i = 0; i < 3; i++) second.push(gc.write((t) => insert(t, `b${i}`)));
      return insert(tx, 'a5');
    }));
    await Promise.all(first);
    await Promise.all(second);
    expect(groups).toEqual([6, 3]);
  });

  it('answers a group only after its sync made it durable, and refuses the group when the sync fails', async () => {
    const { committer } = files();
    const pending: ((err?: Error) => void)[] = [];
    const gc = committer({ sync: () => new Promise<void>((resolve, reject) => pending.push((err) => (err ? reject(err) : resolve()))) });
    let answered = false;
    const write = gc.write((tx) => insert(tx, 'x')).then(() => (answered = true));
    while (pending.length === 0) await new Promise((r) => setImmediate(r));
    await new Promise((r) => setTimeout(r, 5));
    expect(answered).toBe(false); // committed, not yet on disk: not answered
    pending.shift()!();
    await write;
    expect(answered).toBe(true);

    const failing = gc.write((tx) => insert(tx, 'y'));
    while (pending.length === 0) await new Promise((r) => setImmediate(r));
    pending.shift()!(new Error('EIO: the disk refused the fsync'));
    await expect(failing).rejects.toThrow(/EIO/);
  });

  it('splits a burst into groups of at most maxGroup, in order', async () => {
    const { committer } = files();
    const groups: number[] = [];
    const gc = committer({ maxGroup: 40, onCommit: (size) => groups.push(size) });
    const ids = await Promise.all(Array.from({ length: 100 }, (_, i) => gc.write((tx) => insert(tx, `n${i}`))));
    expect(groups).toEqual([40, 40, 20]);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });

  it('rejects every write of a group whose transaction cannot begin, and stores none of them', async () => {
    const { db, committed, committer } = files();
    const gc = committer();
    db.exec('BEGIN'); // someone else's transaction is open on the connection: BEGIN IMMEDIATE fails
    const results = await Promise.allSettled([gc.write((tx) => insert(tx, 'x')), gc.write((tx) => insert(tx, 'y'))]);
    db.exec('ROLLBACK');
    expect(results.every((r) => r.status === 'rejected')).toBe(true);
    expect(committed()).toBe(0);
    // The committer is usable again afterwards.
    await gc.write((tx) => insert(tx, 'z'));
    expect(committed()).toBe(1);
  });

  it('commits what is queued on close and refuses writes after it', async () => {
    const { committed, committer } = files();
    const gc = committer();
    const queued = gc.write((tx) => insert(tx, 'last'));
    await gc.close();
    expect(committed()).toBe(1);
    await queued;
    await expect(gc.write((tx) => insert(tx, 'late'))).rejects.toMatchObject({ code: 'TG_STORE_CLOSED' });
  });
});
