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

/** A write's view of its transaction: refused once the write settled, or once it said it sent all its statements. */
export class TxSql implements Sql {
  readonly dialect: SqlDialect;
  readonly #inner: Sql;
  #live = true;
  #sent = false;
  readonly #onSent: (() => void) | undefined;
  #listeners: CommitListener[] = [];

  /** `onSent`: told once, when the write says it sent all its statements (`sent`), so its COMMIT may go out with them. */
  constructor(inner: Sql, onSent?: () => void) {
    this.#inner = inner;
    this.dialect = inner.dialect;
    this.#onSent = onSent;
  }

  end(): void {
    this.#live = false;
  }

  /** Whether the write said it sent all its statements where its COMMIT may then go out: it issues no more (refused). */
  get allSent(): boolean {
    return this.#sent;
  }

  /**
   * The write issues no more statements; it only awaits what it sent. On PostgreSQL its transaction's COMMIT may
   * then go out with them (pg-group-writer.ts). From here on the write may fail only through its statements: an
   * error of its own after this could no longer roll back what the COMMIT stored. Where no COMMIT goes out early
   * (SQLite: no `onSent`), nothing changes.
   */
  sent(): void {
    if (this.#onSent === undefined || this.#sent || !this.#live) return;
    this.#sent = true;
    this.#onSent();
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

  get #open(): boolean {
    return this.#live && !this.#sent;
  }

  run(sql: string, params?: SqlParams): Promise<RunResult> {
    return this.#open ? this.#inner.run(sql, params) : this.#ended();
  }

  insert(sql: string, params?: SqlParams): Promise<number | undefined> {
    return this.#open ? this.#inner.insert(sql, params) : this.#ended();
  }

  get<T>(sql: string, params?: SqlParams): Promise<T | undefined> {
    return this.#open ? this.#inner.get<T>(sql, params) : this.#ended();
  }

  all<T>(sql: string, params?: SqlParams): Promise<T[]> {
    return this.#open ? this.#inner.all<T>(sql, params) : this.#ended();
  }

  merged<P, R>(statement: Mergeable<P, R>, params: P): Promise<R> {
    return this.#open ? this.#inner.merged(statement, params) : this.#ended();
  }

  #ended(): Promise<never> {
    const why = this.#live
      ? 'a write issued a statement after it said it sent all of them'
      : 'a write used its transaction after it ended (an await on something other than the store?)';
    return Promise.reject(new StoreTxEndedError(why));
  }
}
