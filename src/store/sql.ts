/**
 * The store's SQL seam: the few calls repositories make, asynchronous and
 * backend-neutral. Repositories are written once against it; each backend
 * (SQLite here, PostgreSQL for replicas) supplies an executor. Statements keep
 * to the SQL both backends accept (`returning`, `on conflict … do nothing`,
 * `case`, positional `?` placeholders, which a PostgreSQL executor numbers);
 * where the two must differ, a repository asks `dialect`.
 */

/** Positional values for `?`, or named ones for `@name`. */
export type SqlParams = readonly unknown[] | Readonly<Record<string, unknown>>;

export interface RunResult {
  /** Rows inserted, updated or deleted. */
  changes: number;
}

export type SqlDialect = 'sqlite' | 'postgres';

export interface Sql {
  readonly dialect: SqlDialect;
  /** A statement that returns no rows. */
  run(sql: string, params?: SqlParams): Promise<RunResult>;
  /**
   * An INSERT of one row, written without a RETURNING clause: the new row's `id`, or undefined when it inserted
   * nothing (`on conflict … do nothing`, an `insert … select` that selected nothing). Not for upserts. SQLite
   * answers with the insert's rowid (a RETURNING clause costs it a temporary b-tree, opened and freed, every time;
   * docs/benchmarks.md at 65810b0, "The write path, twelfth increment"); PostgreSQL asks `returning id`.
   */
  insert(sql: string, params?: SqlParams): Promise<number | undefined>;
  /** The first row, or undefined. */
  get<T>(sql: string, params?: SqlParams): Promise<T | undefined>;
  all<T>(sql: string, params?: SqlParams): Promise<T[]>;
  /**
   * `statement` for one row: its single form on SQLite; on PostgreSQL, inside a write, merged with the same
   * statement of the write's neighbours issued in the same tick (postgres/statement-merger.ts).
   */
  merged<P, R>(statement: Mergeable<P, R>, params: P): Promise<R>;
}

/**
 * A statement about one row that the callers of one transaction issue side by side (the writes of a batch, the
 * jobs of a claim, a completion's records). `one` is its form for one row, on either backend; `many`, PostgreSQL's
 * form for several (arrays with `unnest`, `= any`), answers each row's result in the order given. Both must send
 * their statements before their first await: a merged statement keeps its place among the transaction's others.
 */
export interface Mergeable<P, R> {
  readonly name: string;
  one(db: Sql, params: P): Promise<R>;
  many(db: Sql, params: readonly P[]): Promise<R[]>;
}

/**
 * `column` as a statement that finds one row by its primary key (`where id = ? and status = 'running'`) compares it.
 * PostgreSQL keeps a generic plan for a prepared statement, made with the statistics of its first runs: on a table
 * never analyzed yet (a gateway's first minute on a new database) it may read the row through an index on `column`
 * — every job running, every message pending — instead of the primary key, and keeps doing so until autovacuum's
 * first ANALYZE. Compared as an expression (`status || ''`, text only), the column is in no index, and the primary
 * key is the one index such a plan can use (docs/benchmarks.md at 65810b0, "PostgreSQL: plans made on an empty
 * table"). SQLite
 * always finds `id = ?` by its rowid.
 */
export function besideId(dialect: SqlDialect, column: string): string {
  return dialect === 'postgres' ? `${column} || ''` : column;
}
