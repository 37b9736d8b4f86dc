/**
 * Opening the SQLite store: WAL journal, a busy timeout so the CLI can work on
 * the same file while `serve` runs, foreign keys on, and the configured
 * synchronous level. Migrations are applied unless the caller says not to.
 * Anything that goes wrong on the way (a file that is not a database, a
 * damaged one, a folder this user cannot write) is one StoreOpenError naming
 * the path and the reason.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { StoreOpenError } from './errors.ts';
import { GroupCommitter, type GroupCommitOptions } from './group-commit.ts';
import { applyMigrations, migrationStatus } from './migrations.ts';
import { Repos } from './repos.ts';
import { SqliteSql } from './sqlite/sqlite-sql.ts';
import { Checkpointer, type CheckpointerOptions } from './sqlite/checkpointer.ts';
import { WalSync } from './sqlite/wal-sync.ts';
import type { Store } from './store.ts';

export type { Store } from './store.ts';

export interface StoreOptions {
  path: string;
  synchronous?: 'full' | 'normal';
  busyTimeoutMs?: number;
  /** Apply pending migrations on open (default true). */
  migrate?: boolean;
  migrationsFolder?: string;
  /** Grouping of `write` (defaults in group-commit.ts). */
  groupCommit?: GroupCommitOptions;
  /** WAL checkpoints in a worker thread (checkpointer.ts), for a long-running gateway; a command keeps SQLite's own. */
  backgroundCheckpoints?: boolean | CheckpointerOptions;
}

function connect(path: string, options: StoreOptions): Database.Database {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
  db.pragma('foreign_keys = ON');
  db.pragma(`synchronous = ${(options.synchronous ?? 'full').toUpperCase()}`);
  return db;
}

/**
 * Two connections: the writer, owned by the group committer, and a reader
 * (`query_only`) on the same file, which in WAL mode sees only committed
 * transactions — never a group still being written. An in-memory store has
 * one connection for both (its reads may see a group in progress; tests only).
 */
export function openStore(options: StoreOptions): Store {
  const { path } = options;
  const folder = options.migrationsFolder;
  let writer: Database.Database | undefined;
  let reader: Database.Database | undefined;
  try {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    writer = connect(path, options);
    if (options.migrate !== false) applyMigrations(writer, folder);
    else migrationStatus(writer, folder); // reads the schema: a damaged file fails here, not later
    if (path !== ':memory:') {
      reader = connect(path, options);
      reader.pragma('query_only = ON');
    }
  } catch (err) {
    if (writer?.open) writer.close();
    if (reader?.open) reader.close();
    throw new StoreOpenError(`cannot open the store at ${path}: ${openFailureReason(err)}`, { cause: err });
  }
  const db = writer;
  const readDb = reader ?? writer;
  // `full`: the log is fsynced after every group, off the event loop (wal-sync.ts), instead of inside COMMIT.
  const wal = path !== ':memory:' && (options.synchronous ?? 'full') === 'full' ? new WalSync(path) : undefined;
  if (wal) db.pragma('synchronous = NORMAL');
  const bg = options.backgroundCheckpoints;
  const checkpointer =
    bg && path !== ':memory:'
      ? new Checkpointer(path, db, { busyTimeoutMs: options.busyTimeoutMs ?? 5000, ...(typeof bg === 'object' ? bg : {}) })
      : undefined;
  const onCommit = options.groupCommit?.onCommit;
  const group = new GroupCommitter(db, new SqliteSql(db), {
    ...options.groupCommit,
    ...(wal ? { sync: () => wal.sync() } : {}),
    // The checkpoint thread runs while groups change rows fast (checkpointer.ts).
    ...(checkpointer ? { onCommit: (size: number, seconds: number) => (onCommit?.(size, seconds), checkpointer.committed()) } : {}),
  });
  const read = new Repos(new SqliteSql(readDb));
  let closing: Promise<void> | undefined;

  return {
    backend: 'sqlite',
    location: path,
    read,
    write: <T>(fn: (tx: Repos) => T | Promise<T>): Promise<T> => group.write((sql) => fn(new Repos(sql))),
    migrate: async () => {
      const status = applyMigrations(db, folder);
      wal?.syncNow();
      return status;
    },
    migrationStatus: async () => migrationStatus(readDb, folder),
    ping: async () => {
      readDb.prepare('select 1').get();
    },
    close: () =>
      (closing ??= (async () => {
        if (!db.open) return;
        await group.close();
        await checkpointer?.close();
        if (readDb !== db) readDb.close();
        db.close();
        wal?.close();
      })()),
  };
}

/** SQLite's own words, with what they usually mean for someone starting the gateway. */
const HINTS: Record<string, string> = {
  SQLITE_NOTADB: 'it is not a SQLite database',
  SQLITE_CORRUPT: 'the file is damaged or truncated; restore it from a backup',
  SQLITE_READONLY_DIRECTORY: 'this user cannot write the folder, where SQLite keeps the -wal and -shm files',
  SQLITE_READONLY: 'this user cannot write the file or its folder',
  SQLITE_CANTOPEN: 'this user cannot open or create the file or its folder',
  SQLITE_PERM: 'this user cannot write the file or its folder',
  EACCES: 'this user cannot create the folder',
};

function openFailureReason(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  // A migration failure wraps SQLite's error; its code is on the cause.
  const hint = [err, err.cause]
    .map((e) => (e as { code?: unknown } | undefined)?.code)
    // An extended code (SQLITE_READONLY_DBMOVED) falls back to its primary one (SQLITE_READONLY).
    .map((code) => (typeof code === 'string' ? (HINTS[code] ?? HINTS[code.split('_').slice(0, 2).join('_')]) : undefined))
    .find((h) => h !== undefined);
  return hint === undefined ? err.message : `${err.message} (${hint})`;
}
