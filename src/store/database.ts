/**
 * Opening the SQLite store: WAL journal, a busy timeout so the CLI can work on
 * the same file while `serve` runs, foreign keys on, and the configured
 * synchronous level. Migrations are applied unless the caller says not to.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { StoreOpenError } from './errors.ts';
import { applyMigrations, migrationStatus, type MigrationStatus } from './migrations.ts';

export interface StoreOptions {
  path: string;
  synchronous?: 'full' | 'normal';
  busyTimeoutMs?: number;
  /** Apply pending migrations on open (default true). */
  migrate?: boolean;
  migrationsFolder?: string;
}

export interface Store {
  readonly path: string;
  /** The connection; repositories prepare their statements on it (schema in schema.ts). */
  readonly sqlite: Database.Database;
  migrationStatus(): MigrationStatus;
  /** Runs `fn` in one IMMEDIATE transaction (takes the write lock up front). */
  transaction<T>(fn: () => T): T;
  close(): void;
}

export function openStore(options: StoreOptions): Store {
  const { path } = options;
  let sqlite: Database.Database;
  try {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    sqlite = new Database(path);
  } catch (err) {
    throw new StoreOpenError(`cannot open the store at ${path}: ${(err as Error).message}`, { cause: err });
  }
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma(`synchronous = ${(options.synchronous ?? 'full').toUpperCase()}`);

  if (options.migrate !== false) applyMigrations(sqlite, options.migrationsFolder);

  return {
    path,
    sqlite,
    migrationStatus: () => migrationStatus(sqlite, options.migrationsFolder),
    transaction: <T>(fn: () => T): T => sqlite.transaction(fn).immediate(),
    close: () => {
      if (sqlite.open) sqlite.close();
    },
  };
}
