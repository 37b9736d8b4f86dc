/**
 * The SQLite executor behind the `Sql` seam: statements are prepared once per
 * SQL text and run synchronously by better-sqlite3, so every promise it
 * returns is already settled — the seam costs a microtask, not a thread hop.
 * Each is prepared with its parameters as `+?`, so that it is planned once
 * (plain-parameters.ts).
 */
import type Database from 'better-sqlite3';
import type { Mergeable, RunResult, Sql, SqlParams } from '../sql.ts';
import { plainParameters } from './plain-parameters.ts';

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
      statement = this.#db.prepare(plainParameters(sql));
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

  insert(sql: string, params: SqlParams = []): Promise<number | undefined> {
    try {
      const result = bind(this.statement(sql), params, 'run');
      return Promise.resolve(result.changes === 0 ? undefined : Number(result.lastInsertRowid));
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

  /** One row at a time: a write's statements run as they are issued, each at the cost of a function call. */
  merged<P, R>(statement: Mergeable<P, R>, params: P): Promise<R> {
    return statement.one(this, params);
  }
}

function bind(statement: Database.Statement, params: SqlParams, verb: 'get'): unknown;
function bind(statement: Database.Statement, params: SqlParams, verb: 'all'): unknown[];
function bind(statement: Database.Statement, params: SqlParams, verb: 'run'): Database.RunResult;
function bind(statement: Database.Statement, params: SqlParams, verb: 'run' | 'get' | 'all'): unknown {
  return Array.isArray(params) ? statement[verb](...(params as unknown[])) : statement[verb](params);
}
