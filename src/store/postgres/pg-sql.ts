/**
 * The PostgreSQL executor behind the `Sql` seam (node-postgres). The
 * repositories' positional `?` placeholders become `$1…$n` (once per SQL
 * text, cached); `bigint` and `numeric` results come back as JS numbers,
 * since every such column holds an id, a count or a millisecond time, all
 * well inside 2^53. Named (`@name`) parameters are SQLite-only and refused.
 */
import pg from 'pg';
import type { RunResult, Sql, SqlParams } from '../sql.ts';

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

const numbered = new Map<string, string>();

/** `?` → `$n`, outside quoted strings and identifiers. */
export function numberPlaceholders(sql: string): string {
  let out = numbered.get(sql);
  if (out !== undefined) return out;
  let n = 0;
  let quote: string | null = null;
  out = '';
  for (const ch of sql) {
    if (quote !== null) {
      if (ch === quote) quote = null;
      out += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      out += ch;
    } else out += ch === '?' ? `$${++n}` : ch;
  }
  numbered.set(sql, out);
  return out;
}

function values(params: SqlParams | undefined): unknown[] {
  if (params === undefined) return [];
  if (!Array.isArray(params)) throw new TypeError('named parameters are not supported by the PostgreSQL store; use positional ?');
  // SQLite takes booleans as 0/1 only through our own code; keep the same values here.
  return (params as unknown[]).map((v) => (typeof v === 'boolean' ? (v ? 1 : 0) : v));
}

export class PgSql implements Sql {
  readonly dialect = 'postgres';
  readonly #db: Queryable;

  constructor(db: Queryable) {
    this.#db = db;
  }

  async run(sql: string, params?: SqlParams): Promise<RunResult> {
    const result = await this.#db.query({ text: numberPlaceholders(sql), values: values(params) });
    return { changes: result.rowCount ?? 0 };
  }

  async get<T>(sql: string, params?: SqlParams): Promise<T | undefined> {
    const result = await this.#db.query({ text: numberPlaceholders(sql), values: values(params) });
    return result.rows[0] as T | undefined;
  }

  async all<T>(sql: string, params?: SqlParams): Promise<T[]> {
    const result = await this.#db.query({ text: numberPlaceholders(sql), values: values(params) });
    return result.rows as T[];
  }
}
