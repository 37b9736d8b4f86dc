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
import { applyMigrations, migrationStatus, type MigrationStatus } from './migrations.ts';

export interface StoreOptions {
  path: string;
  synchronous?: 'full' | 'normal';
  busyTimeoutMs?: number;
  /** Apply pending migrations on open (default true). */
  migrate?: boolean;
  migrationsFolder?: string;
  /** Grouping of `write` (defaults in group-commit.ts). */
  groupCommit?: GroupCommitOptions;
}

export interface Store {
  readonly path: string;
  /** The connection; repositories prepare their statements on it (schema in schema.ts). */
  readonly sqlite: Database.Database;
  migrationStatus(): MigrationStatus;
  /** Runs `fn` in one IMMEDIATE transaction (takes the write lock up front). */
  transaction<T>(fn: () => T): T;
  /**
   * Runs `fn` (synchronous SQL) as one atomic write grouped with the writes of
   * other callers in one transaction (group-commit.ts); resolves after the
   * COMMIT that holds it. A write that throws is rolled back alone.
   */
  write<T>(fn: () => T): Promise<T>;
  /** Commits the writes still waiting, then closes the connection. */
  close(): void;
}

export function openStore(options: StoreOptions): Store {
  const { path } = options;
  let sqlite: Database.Database | undefined;
  try {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    sqlite = new Database(path);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma(`synchronous = ${(options.synchronous ?? 'full').toUpperCase()}`);
    if (options.migrate !== false) applyMigrations(sqlite, options.migrationsFolder);
    else migrationStatus(sqlite, options.migrationsFolder); // reads the schema: a damaged file fails here, not later
  } catch (err) {
    if (sqlite?.open) sqlite.close();
    throw new StoreOpenError(`cannot open the store at ${path}: ${openFailureReason(err)}`, { cause: err });
  }
  const db = sqlite;
  const group = new GroupCommitter(db, options.groupCommit);

  return {
    path,
    sqlite: db,
    migrationStatus: () => migrationStatus(db, options.migrationsFolder),
    transaction: <T>(fn: () => T): T => db.transaction(fn).immediate(),
    write: <T>(fn: () => T): Promise<T> => group.write(fn),
    close: () => {
      if (!db.open) return;
      group.close();
      db.close();
    },
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
