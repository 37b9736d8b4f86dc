// The WAL checkpointer's thread (checkpointer.ts starts it while the store is
// being written): its own connection runs `PRAGMA wal_checkpoint(PASSIVE)`
// every `intervalMs`, copying committed log frames into the database file and
// fsyncing it, while the writer on the main thread keeps committing. PASSIVE
// never waits for the writer or a reader; frames it could not copy are taken
// at the next round.
//
// When `idleRounds` rounds in a row found the log fully copied and unchanged,
// it says `idle` once and goes on until the owner answers `stop` (or goes on
// being asked for nothing); at `stop` it copies what is left and ends.
//
// Plain JavaScript, not TypeScript: a worker thread is a Node.js instance of
// its own, without the main thread's compile cache, and a `.ts` entry would
// load the type stripper into it (17 MiB; docs/decisions/footprint.md).
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

/** @type {{ path: string, intervalMs: number, busyTimeoutMs: number, idleRounds: number }} */
const { path, intervalMs, busyTimeoutMs, idleRounds } = workerData;
const port = /** @type {import('node:worker_threads').MessagePort} */ (parentPort);
const db = new Database(path);
db.pragma(`busy_timeout = ${busyTimeoutMs}`);
// NORMAL: the log is synced before a checkpoint and the database file after it.
db.pragma('synchronous = NORMAL');
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');

let last = '';
let quiet = 0;

function round() {
  try {
    const { log, checkpointed } = /** @type {{ log: number, checkpointed: number }} */ (checkpoint.get());
    const now = `${log}/${checkpointed}`;
    quiet = now === last && log === checkpointed ? quiet + 1 : 0;
    last = now;
    if (quiet === idleRounds) port.postMessage({ idle: true });
  } catch (err) {
    port.postMessage({ error: /** @type {Error} */ (err).message });
  }
}

const timer = setInterval(round, intervalMs);

port.on('message', (message) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  round();
  db.close();
  port.close();
});
