/**
 * The WAL checkpointer's thread (checkpointer.ts starts it): its own
 * connection runs `PRAGMA wal_checkpoint(PASSIVE)` every `intervalMs`,
 * copying committed log frames into the database file and fsyncing it, while
 * the writer on the main thread keeps committing. PASSIVE never waits for the
 * writer or a reader; frames it could not copy are taken at the next round.
 */
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

const { path, intervalMs, busyTimeoutMs } = workerData as { path: string; intervalMs: number; busyTimeoutMs: number };
const port = parentPort!;
const db = new Database(path);
db.pragma(`busy_timeout = ${busyTimeoutMs}`);
// NORMAL: the log is synced before a checkpoint and the database file after it.
db.pragma('synchronous = NORMAL');
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');

const timer = setInterval(() => {
  try {
    checkpoint.get();
  } catch (err) {
    port.postMessage({ error: (err as Error).message });
  }
}, intervalMs);

port.on('message', (message) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  db.close();
  port.close();
});
