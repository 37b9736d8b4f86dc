/**
 * A connection to the SQLite store's file: WAL journal, a busy timeout so the
 * CLI can work on the same file while `serve` runs, foreign keys on, and the
 * configured synchronous level. Used by the main thread's connections and the
 * writer thread's.
 */
import Database from 'better-sqlite3';

export interface ConnectOptions {
  synchronous?: 'full' | 'normal';
  busyTimeoutMs?: number;
}

export function connect(path: string, options: ConnectOptions): Database.Database {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
  db.pragma('foreign_keys = ON');
  db.pragma(`synchronous = ${(options.synchronous ?? 'full').toUpperCase()}`);
  return db;
}
