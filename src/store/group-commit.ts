/**
 * Group commit for the SQLite backend: writes asked for by concurrent
 * requests and jobs are collected while the current event-loop turn runs and
 * committed together in one `BEGIN IMMEDIATE … COMMIT`, so one fsync covers
 * many of them. Each write runs inside its own SAVEPOINT: one that throws is
 * rolled back alone and its caller gets the error, while its neighbours
 * commit. Every caller's promise settles only after the COMMIT that holds its
 * write returned — a 2xx sent on it is durable.
 *
 * A write is a synchronous function over the connection: the whole group
 * runs in one synchronous block, so no other code can touch the connection
 * while its transaction is open. A write that returns a promise is refused.
 */
import type Database from 'better-sqlite3';
import { StoreClosedError, StoreWriteAsyncError } from './errors.ts';

export interface GroupCommitOptions {
  /** Most writes in one transaction; the rest go to the next group. */
  maxGroup?: number;
  /** Told about each committed group (metrics, benchmarks). */
  onCommit?: (size: number, seconds: number) => void;
}

interface Pending {
  work: () => unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

type Settled = { ok: true; value: unknown } | { ok: false; error: unknown };

export const DEFAULT_MAX_GROUP = 512;

export class GroupCommitter {
  readonly #db: Database.Database;
  readonly #maxGroup: number;
  readonly #onCommit: GroupCommitOptions['onCommit'];
  readonly #sql: Record<'begin' | 'commit' | 'rollback' | 'savepoint' | 'release' | 'undo', Database.Statement>;
  #queue: Pending[] = [];
  #scheduled = false;
  #closed = false;

  constructor(db: Database.Database, options: GroupCommitOptions = {}) {
    this.#db = db;
    this.#maxGroup = options.maxGroup ?? DEFAULT_MAX_GROUP;
    this.#onCommit = options.onCommit;
    this.#sql = {
      begin: db.prepare('BEGIN IMMEDIATE'),
      commit: db.prepare('COMMIT'),
      rollback: db.prepare('ROLLBACK'),
      savepoint: db.prepare('SAVEPOINT tg_write'),
      release: db.prepare('RELEASE tg_write'),
      undo: db.prepare('ROLLBACK TO tg_write'),
    };
  }

  /** Runs `work` in the next group; resolves with its result after that group committed. */
  write<T>(work: () => T): Promise<T> {
    if (this.#closed) return Promise.reject(new StoreClosedError('the store is closed'));
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ work, resolve: resolve as (v: unknown) => void, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        // After the current turn's I/O callbacks: every request parsed in this turn joins the group.
        setImmediate(() => void this.#flushAll());
      }
    });
  }

  /** Writes still waiting for their commit. */
  get pending(): number {
    return this.#queue.length;
  }

  /** Commits what is queued, then refuses new writes. */
  close(): void {
    this.#closed = true;
    this.#flushAll();
  }

  #flushAll(): void {
    this.#scheduled = false;
    while (this.#queue.length > 0) this.#commitGroup(this.#queue.splice(0, this.#maxGroup));
  }

  #commitGroup(group: Pending[]): void {
    const started = performance.now();
    const settled: Settled[] = [];
    try {
      this.#sql.begin.run();
    } catch (error) {
      for (const p of group) p.reject(error);
      return;
    }
    try {
      for (const p of group) {
        this.#sql.savepoint.run();
        try {
          const value = p.work();
          if (isThenable(value)) throw new StoreWriteAsyncError('a grouped write must be synchronous');
          this.#sql.release.run();
          settled.push({ ok: true, value });
        } catch (error) {
          this.#sql.undo.run();
          this.#sql.release.run();
          settled.push({ ok: false, error });
        }
      }
      this.#sql.commit.run();
    } catch (error) {
      // The COMMIT (or the savepoint bookkeeping) failed: nothing of the group is stored.
      if (this.#db.inTransaction) this.#sql.rollback.run();
      for (const p of group) p.reject(error);
      return;
    }
    this.#onCommit?.(group.length, (performance.now() - started) / 1000);
    group.forEach((p, i) => {
      const s = settled[i] as Settled;
      if (s.ok) p.resolve(s.value);
      else p.reject(s.error);
    });
  }
}

function isThenable(value: unknown): boolean {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}
