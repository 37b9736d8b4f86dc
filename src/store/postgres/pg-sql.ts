/**
 * The PostgreSQL executor behind the `Sql` seam (node-postgres). The
 * repositories' positional `?` placeholders become `$1…$n` (once per SQL
 * text, cached), and each statement is prepared once per connection under a
 * name of its own (parsed and planned once, then only bound and executed;
 * `store.prepared_statements: false` for poolers that cannot keep them);
 * `bigint` and `numeric` results come back as JS numbers,
 * since every such column holds an id, a count or a millisecond time, all
 * well inside 2^53. Text with U+0000, which PostgreSQL cannot store, is
 * stored with U+FFFD in its place. Named (`@name`) parameters are
 * SQLite-only and refused.
 */
import pg from 'pg';
import { StoreUnavailableError } from '../errors.ts';
import type { Mergeable, RunResult, Sql, SqlParams } from '../sql.ts';
import type { StatementMerger } from './statement-merger.ts';
import { arrayCastAt, binaryArray, type ArrayElement } from './pg-array.ts';
import { pgValue } from './pg-value.ts';

/** Answers numbers for int8 (ids, counts, ms times) and numeric (sums), per pool (pg's `types` option). */
export const PG_TYPES = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === pg.types.builtins.INT8 || oid === pg.types.builtins.NUMERIC) return (value: string) => Number(value);
    return format === undefined ? pg.types.getTypeParser(oid) : pg.types.getTypeParser(oid, format);
  },
} as unknown as pg.CustomTypesConfig;

/** Something that runs a query: the pool (each query on any connection) or one checked-out client (a transaction). */
export interface Queryable {
  query<R extends pg.QueryResultRow>(config: pg.QueryConfig): Promise<pg.QueryResult<R>>;
}

interface Statement {
  text: string;
  /** A name for the server-side prepared statement: the same SQL text, the same name, on every connection. */
  name: string;
  /** By parameter: the element type of the array it is cast to (`?::bigint[]`), sent in binary (pg-array.ts). */
  arrays: readonly (ArrayElement | undefined)[];
}

const statements = new Map<string, Statement>();
const MAX_STATEMENTS = 2_000;

/** `?` → `$n`, outside quoted strings and identifiers; with its prepared statement's name. */
export function numberPlaceholders(sql: string): Statement {
  let statement = statements.get(sql);
  if (statement !== undefined) return statement;
  let n = 0;
  const arrays: (ArrayElement | undefined)[] = [];
  let quote: string | null = null;
  let comment = false;
  let text = '';
  for (let i = 0; i < sql.length; i++) {
    const ch = sql[i]!;
    if (comment) {
      // A `--` comment runs to the line's end: its quotes and question marks are prose.
      if (ch === '\n') comment = false;
      text += ch;
    } else if (quote !== null) {
      if (ch === quote) quote = null;
      text += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      text += ch;
    } else if (ch === '-' && sql[i + 1] === '-') {
      comment = true;
      text += ch;
    } else if (ch === '?') {
      arrays[n] = arrayCastAt(sql.slice(i + 1, i + 16));
      text += `$${++n}`;
    } else text += ch;
  }
  statement = { text, name: `tg_${statements.size.toString(36)}`, arrays };
  // The repositories' SQL is a bounded set; should dynamic SQL ever grow past it, the rest is neither kept nor prepared.
  if (statements.size < MAX_STATEMENTS) statements.set(sql, statement);
  else statement = { text, name: '', arrays };
  return statement;
}

function values(params: SqlParams | undefined, arrays: Statement['arrays']): unknown[] {
  if (params === undefined) return [];
  if (!Array.isArray(params)) throw new TypeError('named parameters are not supported by the PostgreSQL store; use positional ?');
  return (params as unknown[]).map((v, i) => {
    const element = arrays[i];
    return (element !== undefined && Array.isArray(v) && binaryArray(v, element)) || pgValue(v);
  });
}

/**
 * The server is not there (refused, reset, restarting, shutting down, out of connections) rather than the statement
 * being wrong: SQLSTATE class 08, 57P01–57P03, 53300, the socket's errno, or node-postgres's own words for a dropped
 * or timed-out connection. Such errors become StoreUnavailableError (503; a job waits instead of failing).
 */
const UNAVAILABLE = new Set(['57P01', '57P02', '57P03', '53300', 'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
const DROPPED = /Connection terminated|timeout exceeded when trying to connect|connection error and is not queryable/;
function isUnavailable(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && (UNAVAILABLE.has(code) || code.startsWith('08'))) return true;
  return err instanceof Error && DROPPED.test(err.message);
}

/** unique_violation, serialization_failure, deadlock_detected: another transaction won; running again settles it. */
const CONFLICTS = new Set(['23505', '40001', '40P01']);
export const isConflict = (err: unknown): boolean => CONFLICTS.has((err as { code?: unknown } | null)?.code as string);

/** `err` as StoreUnavailableError when it says the server is not there; otherwise `err` itself. */
export const asUnavailable = (err: unknown): unknown =>
  err instanceof StoreUnavailableError || !isUnavailable(err) ? err : new StoreUnavailableError(`the store is unavailable: ${(err as Error).message}`, { cause: err });

export class PgSql implements Sql {
  readonly dialect = 'postgres';
  readonly #db: Queryable;
  readonly #prepare: boolean;
  readonly #merger: StatementMerger | undefined;
  readonly #ordered: boolean;

  /**
   * `prepare`: statements are prepared once per connection and then only bound and run (not with PgBouncer < 1.21
   * in transaction mode). `merger`: the transaction's, when this is a write's executor, or the pool's for reads
   * (statement-merger.ts). `ordered` (default true): this executor's statements keep their order; false for the
   * pool's reads, which go to any connection in any order anyway, so each may join any waiting one.
   */
  constructor(db: Queryable, options: { prepare?: boolean; merger?: StatementMerger; ordered?: boolean } = {}) {
    this.#db = db;
    this.#prepare = options.prepare ?? true;
    this.#merger = options.merger;
    this.#ordered = options.ordered ?? true;
  }

  #query(sql: string, params: SqlParams | undefined): pg.QueryConfig {
    const { text, name, arrays } = numberPlaceholders(sql);
    return this.#prepare && name !== '' ? { name, text, values: values(params, arrays) } : { text, values: values(params, arrays) };
  }

  async #exec(sql: string, params: SqlParams | undefined): Promise<pg.QueryResult> {
    // What waits to be merged was issued first: it goes first.
    this.#merger?.flush();
    try {
      return await this.#db.query(this.#query(sql, params));
    } catch (err) {
      throw asUnavailable(err);
    }
  }

  async run(sql: string, params?: SqlParams): Promise<RunResult> {
    const result = await this.#exec(sql, params);
    return { changes: result.rowCount ?? 0 };
  }

  async insert(sql: string, params?: SqlParams): Promise<number | undefined> {
    const result = await this.#exec(`${sql} returning id`, params);
    return (result.rows[0] as { id: number } | undefined)?.id;
  }

  async get<T>(sql: string, params?: SqlParams): Promise<T | undefined> {
    const result = await this.#exec(sql, params);
    return result.rows[0] as T | undefined;
  }

  async all<T>(sql: string, params?: SqlParams): Promise<T[]> {
    const result = await this.#exec(sql, params);
    return result.rows as T[];
  }

  merged<P, R>(statement: Mergeable<P, R>, params: P): Promise<R> {
    return this.#merger ? this.#merger.add(this.#ordered ? this : {}, statement, params) : statement.one(this, params);
  }
}
