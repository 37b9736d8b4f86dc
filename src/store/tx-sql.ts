/**
 * The executor a write gets (either backend): usable only while that write
 * runs, so a write cannot leave work behind that would land in a later
 * transaction (SQLite: the next group's; PostgreSQL: a pooled connection's
 * next user). It also holds what the write asked to be told once its fate
 * is known (`afterCommit`).
 */
import { StoreTxEndedError } from './errors.ts';
import type { Mergeable, RunResult, Sql, SqlDialect, SqlParams } from './sql.ts';

/** Told whether the write is stored: true after its COMMIT (and fsync) returned, false when it was rolled back. */
export type CommitListener = (committed: boolean) => void;

/** A write's view of its transaction: refused once the write settled. */
export class TxSql implements Sql {
  readonly dialect: SqlDialect;
  readonly #inner: Sql;
  #live = true;
  #listeners: CommitListener[] = [];

  constructor(inner: Sql) {
    this.#inner = inner;
    this.dialect = inner.dialect;
  }

  end(): void {
    this.#live = false;
  }

  /** Registers `listener` for this write's fate; only while the write runs. */
  afterCommit(listener: CommitListener): void {
    if (!this.#live) throw new StoreTxEndedError('a write registered a commit listener after it ended');
    this.#listeners.push(listener);
  }

  /**
   * Tells the listeners, once: by the backend, after the COMMIT that holds the write (true) or its rollback (false),
   * before the write's caller is answered. A listener that throws is a bug: it is thrown again on its own, after the
   * others were told.
   */
  settle(committed: boolean): void {
    const listeners = this.#listeners;
    this.#listeners = [];
    for (const listener of listeners) {
      try {
        listener(committed);
      } catch (err) {
        queueMicrotask(() => {
          throw err;
        });
      }
    }
  }

  run(sql: string, params?: SqlParams): Promise<RunResult> {
    return this.#live ? this.#inner.run(sql, params) : ended();
  }

  insert(sql: string, params?: SqlParams): Promise<number | undefined> {
    return this.#live ? this.#inner.insert(sql, params) : ended();
  }

  get<T>(sql: string, params?: SqlParams): Promise<T | undefined> {
    return this.#live ? this.#inner.get<T>(sql, params) : ended();
  }

  all<T>(sql: string, params?: SqlParams): Promise<T[]> {
    return this.#live ? this.#inner.all<T>(sql, params) : ended();
  }

  merged<P, R>(statement: Mergeable<P, R>, params: P): Promise<R> {
    return this.#live ? this.#inner.merged(statement, params) : ended();
  }
}

function ended(): Promise<never> {
  return Promise.reject(new StoreTxEndedError('a write used its transaction after it ended (an await on something other than the store?)'));
}
