/**
 * The SQLite executor behind the `Sql` seam: statements are prepared once per
 * SQL text and run synchronously by better-sqlite3, so every promise it
 * returns is already settled — the seam costs a microtask, not a thread hop.
 * `TxSql` is the executor a grouped write gets: usable only while that write
 * runs, so a write cannot leave work behind that would land in a later
 * group's transaction.
 */
import type Database from 'better-sqlite3';
import { StoreTxEndedError } from '../errors.ts';
import type { RunResult, Sql, SqlParams } from '../sql.ts';

export class SqliteSql implements Sql {
  readonly dialect = 'sqlite';
  readonly #db: Database.Database;
  readonly #statements = new Map<string, Database.Statement>();

  constructor(db: Database.Database) {
    this.#db = db;
  }

  statement(sql: string): Database.Statement {
    let statement = this.#statements.get(sql);
    if (statement === undefined) {
      statement = this.#db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  run(sql: string, params: SqlParams = []): Promise<RunResult> {
    try {
      return Promise.resolve({ changes: bind(this.statement(sql), params, 'run').changes });
    } catch (err) {
      return Promise.reject(err as Error);
    }
  }

  get<T>(sql: string, params: SqlParams = []): Promise<T | undefined> {
    try {
      return Promise.resolve(bind(this.statement(sql), params, 'get') as T | undefined);
    } catch (err) {
      return Promise.reject(err as Error);
    }
  }

  all<T>(sql: string, params: SqlParams = []): Promise<T[]> {
    try {
      return Promise.resolve(bind(this.statement(sql), params, 'all') as T[]);
    } catch (err) {
      return Promise.reject(err as Error);
    }
  }
}

function bind(statement: Database.Statement, params: SqlParams, verb: 'get'): unknown;
function bind(statement: Database.Statement, params: SqlParams, verb: 'all'): unknown[];
function bind(statement: Database.Statement, params: SqlParams, verb: 'run'): Database.RunResult;
function bind(statement: Database.Statement, params: SqlParams, verb: 'run' | 'get' | 'all'): unknown {
  return Array.isArray(params) ? statement[verb](...(params as unknown[])) : statement[verb](params);
}

/** A grouped write's view of the writer connection: refused once the write settled. */
export class TxSql implements Sql {
  readonly dialect = 'sqlite';
  readonly #inner: Sql;
  #live = true;

  constructor(inner: Sql) {
    this.#inner = inner;
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
