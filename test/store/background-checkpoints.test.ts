/**
 * WAL checkpoints in a worker thread: with the writer's own automatic
 * checkpoint raised far out of reach, committed writes still reach the
 * database file itself while the store is open — the checkpoint thread copied
 * them — and closing the store stops the thread. The thread runs only while
 * the store is written: a group that changed nothing does not start it, and it
 * stops once the log stayed copied for its idle time (a waiting gateway holds
 * no thread; docs/decisions/footprint.md).
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it, onTestFinished } from 'vitest';
import { openStore } from '../../src/store/database.ts';
import { Checkpointer } from '../../src/store/sqlite/checkpointer.ts';
import { tempDir } from '../support/temp-dir.ts';
import { until } from '../support/wait.ts';

const body = 'x'.repeat(2_000);

async function fill(store: ReturnType<typeof openStore>, rows: number) {
  await Promise.all(
    Array.from({ length: rows }, (_, i) =>
      store.write((tx) =>
        tx.deliveries.insert(
          { connector: 'c', eventType: 'message_created', dedupKey: `k-${i}`, eventAt: '2026-11-27T08:00:00Z', duplicateOf: null, threadId: 't', chatId: null, body, bodyTruncated: false, headers: {}, verification: 'valid', status: 'accepted', error: null },
          Date.now(),
        ),
      ),
    ),
  );
}

describe('background WAL checkpoints', () => {
  it('copies committed frames into the database file while the writer goes on, and stops with the store', async () => {
    const path = join(tempDir(), 'bg.db');
    const store = openStore({ path, backgroundCheckpoints: { intervalMs: 20, fallbackPages: 1_000_000, startRows: 100 } });
    const before = statSync(path).size;
    await fill(store, 500); // ~1 MB of rows: in the log first
    await until(() => statSync(path).size > before + 900_000, 5_000, 'the rows checkpointed into the database file');
    await store.close();
    expect(statSync(path).size).toBeGreaterThan(before + 900_000);
  });

  it('leaves checkpoints to SQLite itself without the option (the database file grows only at its automatic checkpoint)', async () => {
    const path = join(tempDir(), 'plain.db');
    const store = openStore({ path });
    const before = statSync(path).size;
    await fill(store, 200); // ~400 KB: under the 1,000-page automatic checkpoint
    await new Promise((r) => setTimeout(r, 200));
    expect(statSync(path).size).toBe(before);
    await store.close();
  });

  it('starts its thread when rows change fast, stops it once the log stayed copied, and starts it again', async () => {
    const path = join(tempDir(), 'on-demand.db');
    const writer = new Database(path);
    writer.pragma('journal_mode = WAL');
    writer.exec('create table t (x text)');
    const checkpointer = new Checkpointer(path, writer, { intervalMs: 10, idleMs: 100, fallbackPages: 1_000_000, startRows: 100 });
    onTestFinished(async () => {
      await checkpointer.close();
      writer.close();
    });
    const insert = writer.prepare('insert into t values (?)');
    // A claim that found no job commits a group that changed nothing; a mail now and then changes a few rows: no thread.
    writer.prepare("update t set x = 'y' where x = 'none'").run();
    checkpointer.committed();
    for (let i = 0; i < 10; i++) insert.run(body);
    checkpointer.committed();
    expect(checkpointer.running).toBe(false);
    expect(writer.pragma('wal_autocheckpoint', { simple: true })).toBe(1_000); // SQLite's own meanwhile

    for (let i = 0; i < 200; i++) insert.run(body);
    checkpointer.committed();
    expect(checkpointer.running).toBe(true);
    expect(writer.pragma('wal_autocheckpoint', { simple: true })).toBe(1_000_000);
    const before = statSync(path).size;
    await until(() => statSync(path).size > before + 300_000, 5_000, 'the rows checkpointed into the database file');
    await until(() => !checkpointer.running, 5_000, 'the thread stopped once the log stayed copied');
    expect(writer.pragma('wal_autocheckpoint', { simple: true })).toBe(1_000);

    for (let i = 0; i < 200; i++) insert.run(body);
    checkpointer.committed();
    // The stopped thread may still be winding down (its last round): the new one starts once it has ended.
    await until(() => checkpointer.running, 5_000, 'a new thread for the second rows');
    const again = statSync(path).size;
    await until(() => statSync(path).size > again + 300_000, 5_000, 'the second rows checkpointed by a new thread');
  });
});
