/** Building `where` clauses from optional filter values, shared by the log and job queries. */

/** The most rows one page of a listing returns. */
export const MAX_PAGE = 1_000;

export type Clause = [sql: string, params: unknown[]];

/** `where a = ? and b in (?, ?)` from the clauses whose value was given. */
export function where(clauses: (Clause | undefined)[]): { sql: string; params: unknown[] } {
  const used = clauses.filter((c): c is Clause => c !== undefined);
  return { sql: used.length ? `where ${used.map(([c]) => c).join(' and ')}` : '', params: used.flatMap(([, p]) => p) };
}

export const eq = (column: string, value: unknown, op = '='): Clause | undefined =>
  value === undefined ? undefined : [`${column} ${op} ?`, [value]];

export const oneOf = (column: string, values: readonly string[] | undefined): Clause | undefined =>
  values && values.length > 0 ? [`${column} in (${values.map(() => '?').join(', ')})`, [...values]] : undefined;
