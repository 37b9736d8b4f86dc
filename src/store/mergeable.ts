/**
 * Building blocks of the repositories' merged statements (sql.ts
 * `Mergeable`): the many-rows forms are PostgreSQL's, run only by its
 * statement merger (postgres/statement-merger.ts).
 */
import type { Mergeable, Sql } from './sql.ts';

/**
 * A merged statement whose many-rows form changes rows by a key (an id) and holds only when the keys differ:
 * rows of a repeated key (one write recording a row twice) run one by one instead, in order, as they would apart.
 */
export function byKey<P, R>(name: string, key: (params: P) => unknown, one: Mergeable<P, R>['one'], many: Mergeable<P, R>['many']): Mergeable<P, R> {
  return {
    name,
    one,
    many(db: Sql, params: readonly P[]): Promise<R[]> {
      const keys = new Set(params.map(key));
      // Sent back to back, before any await: the statements keep their place in the transaction.
      return keys.size === params.length ? many(db, params) : Promise.all(params.map((p) => one(db, p)));
    },
  };
}

/** The i-th values of every row, as one array a column (`unnest(?::bigint[], ?::text[], …)`). */
export function columns<P extends readonly unknown[]>(rows: readonly P[], width: number): unknown[][] {
  const out: unknown[][] = Array.from({ length: width }, () => new Array<unknown>(rows.length));
  rows.forEach((row, r) => {
    for (let c = 0; c < width; c++) out[c]![r] = row[c] ?? null;
  });
  return out;
}

/**
 * The join of a table (`alias`) with its rows' new values `v` (`unnest(…) as v(id, …)`), its ids given once more as
 * the statement's last parameter (`idColumns`). By the ids alone a plan reads the table through its primary key:
 * joined on `v.id` only, the generic plan PostgreSQL keeps when it made it on an empty table scans the table whole
 * (4 ms a completion behind 50,000 jobs when measured; test/store/merged-generic-plans.test.ts).
 */
export const BY_IDS = (alias: string): string => `${alias}.id = any(?::bigint[]) and ${alias}.id = v.id`;

/** The parameters of a statement joined `BY_IDS`: `columns` of rows whose first value is the id, then the ids again. */
export function idColumns<P extends readonly unknown[]>(rows: readonly P[], width: number): unknown[][] {
  const cols = columns(rows, width);
  return [...cols, cols[0]!];
}

/**
 * The ids of the rows an `insert … select … from unnest(…) returning id` inserted, in the order of its input: the
 * sequence gives each row the next id as the rows come out of `unnest`, in order, so the ids rise with it.
 */
export function insertedIds(rows: readonly { id: number }[]): number[] {
  return rows.map((r) => r.id).sort((a, b) => a - b);
}
