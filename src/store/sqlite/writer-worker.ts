/**
 * The writer thread (a worker): its own connection on the store's file, its
 * own group committer and WAL fsync, and the named writes (`WriteCommand`s)
 * the main thread posts to it in batches, found by name in the commands
 * module it was given. Its groups take the lock it shares with the main
 * thread's writer (write-lock.ts); after each group it posts the group's
 * ticket and every write's result or error, in the order the writes ran.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { GroupCommitter } from '../group-commit.ts';
import { Repos } from '../repos.ts';
import type { WriteCommand, WriteCommandsModule } from '../store.ts';
import { connect } from './connect.ts';
import { SqliteSql } from './sqlite-sql.ts';
import { WalSync } from './wal-sync.ts';
import { WriteLock } from './write-lock.ts';
import type { ToWriter, WireError, WriteResult, WriterData } from './writer-messages.ts';

const data = workerData as WriterData;
const port = parentPort as NonNullable<typeof parentPort>;

function wire(err: unknown): WireError {
  if (err instanceof Error) return { name: err.name, message: err.message, code: (err as { code?: unknown }).code as string | undefined };
  return { name: 'Error', message: String(err) };
}

const db = connect(data.path, data);
const wal = data.synchronous === 'full' ? new WalSync(data.path) : undefined;
if (wal) db.pragma('synchronous = NORMAL');
const lock = new WriteLock(data.lockMemory);
/** The results of the group being told, in the order its writes ran. */
let outbox: WriteResult[] = [];
let groupError: unknown;
const committer = new GroupCommitter(db, new SqliteSql(db), {
  ...(data.maxGroup ? { maxGroup: data.maxGroup } : {}),
  ...(wal ? { sync: () => wal.sync() } : {}),
  sharing: {
    lock: { acquire: () => lock.acquireBlocking(), release: () => lock.release() },
    settle: (ticket, settle, error) => {
      groupError = error;
      settle(); // each write's listener fills the outbox
      const results = outbox;
      outbox = [];
      port.postMessage({ t: 'group', ticket, results });
    },
  },
});

let commands: WriteCommandsModule['WRITE_COMMANDS'] | undefined;
const ready = import(data.commandsUrl).then((m: WriteCommandsModule) => {
  commands = m.WRITE_COMMANDS;
});

function run(id: number, name: string, args: unknown): void {
  const command = commands?.[name] as WriteCommand<unknown, unknown> | undefined;
  let failure: unknown;
  let value: unknown;
  void committer
    .write(async (sql) => {
      const tx = new Repos(sql);
      tx.afterCommit((ok) => outbox.push(ok ? { id, value } : { id, error: wire(failure ?? groupError ?? new Error('rolled back with its group')) }));
      try {
        if (!command) throw new Error(`no write command named ${JSON.stringify(name)}`);
        value = await command.run(tx, args);
        return value;
      } catch (err) {
        failure = err;
        throw err;
      }
    })
    .catch(() => {}); // told through the outbox
}

port.on('message', (msg: ToWriter) => {
  if (msg.t === 'batch') {
    void ready.then(() => {
      for (const w of msg.writes) run(w.id, w.name, w.args);
    });
    return;
  }
  void (async () => {
    await ready.catch(() => {});
    await committer.close();
    db.close();
    wal?.close();
    port.postMessage({ t: 'closed' });
    port.close();
  })();
});

ready.then(
  () => port.postMessage({ t: 'ready' }),
  (err: unknown) => port.postMessage({ t: 'failed', error: wire(err) }),
);
