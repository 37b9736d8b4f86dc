/**
 * An executor that runs statements on another and keeps each one's text and
 * parameters, for tests that look at the statements a repository makes
 * (their plans, their shape).
 */
import type { Mergeable, RunResult, Sql, SqlParams } from '../../src/store/sql.ts';

export class RecordingSql implements Sql {
  readonly dialect: Sql['dialect'];
  readonly seen: { sql: string; params: SqlParams }[] = [];
  readonly #inner: Sql;

  constructor(inner: Sql) {
    this.#inner = inner;
    this.dialect = inner.dialect;
  }

  run(sql: string, params: SqlParams = []): Promise<RunResult> {
    this.seen.push({ sql, params });
    return this.#inner.run(sql, params);
  }

  insert(sql: string, params: SqlParams = []): Promise<number | undefined> {
    this.seen.push({ sql, params });
    return this.#inner.insert(sql, params);
  }

  get<T>(sql: string, params: SqlParams = []): Promise<T | undefined> {
    this.seen.push({ sql, params });
    return this.#inner.get<T>(sql, params);
  }

  all<T>(sql: string, params: SqlParams = []): Promise<T[]> {
    this.seen.push({ sql, params });
    return this.#inner.all<T>(sql, params);
  }

  /** Its single form, recorded as such. */
  merged<P, R>(statement: Mergeable<P, R>, params: P): Promise<R> {
    return statement.one(this, params);
  }
}
