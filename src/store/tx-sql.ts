/**
 * The executor a write gets (either backend): usable only while that write
 * runs, so a write cannot leave work behind that would land in a later
 * transaction (SQLite: the next group's; PostgreSQL: a pooled connection's
 * next user).
 */
import { StoreTxEndedError } from './errors.ts';
import type { RunResult, Sql, SqlDialect, SqlParams } from './sql.ts';

/** A write's view of its transaction: refused once the write settled. */
export class TxSql implements Sql {
  readonly dialect: SqlDialect;
  readonly #inner: Sql;
  #live = true;

  constructor(inner: Sql) {
    this.#inner = inner;
    this.dialect = inner.dialect;
  }

  end(): void {
    this.#live = false;
  }

  run(sql: string, params?: SqlParams): Promise<RunResult> {
    return this.#live ? this.#inner.run(sql, params) : ended();
  }

  get<T>(sql: string, params?: SqlParams): Promise<T | undefined> {
    return this.#live ? this.#inner.get<T>(sql, params) : ended();
  }

  all<T>(sql: string, params?: SqlParams): Promise<T[]> {
    return this.#live ? this.#inner.all<T>(sql, params) : ended();
  }
}

function ended(): Promise<never> {
  return Promise.reject(new StoreTxEndedError('a write used its transaction after it ended (an await on something other than the store?)'));
}
