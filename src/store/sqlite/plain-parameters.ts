/**
 * Every `?` of a statement written as `+?` before SQLite prepares it.
 *
 * SQLite plans a prepared statement again, on its next step, after a new
 * value is bound to a parameter whose value its planner looked at: one
 * compared for equality in a statement with an ORDER BY (`thread = ? … order
 * by id`) or a join, one in a LIMIT beside an ORDER BY, a LIKE pattern (its
 * `sqlite3VdbeReprepareOnBind`). better-sqlite3 binds every parameter on
 * every run, so such a statement was parsed and planned on every run: a
 * thread's pending messages took 34 µs instead of 6, a thread found by a
 * reference 23 µs instead of 4 (`npm run bench:statements`; docs/benchmarks.md,
 * "Micro-benchmarks"). `+?` is the same value but no longer a bare parameter
 * to the planner, which then plans the statement once, for any value; an
 * index serves `column = +?` as it serves `column = ?`. SQLite's own switch
 * for this, SQLITE_DBCONFIG_ENABLE_QPSG, is not reachable through
 * better-sqlite3.
 *
 * Quoted text, quoted names and comments are left as they are; numbered and
 * named parameters (`?1`, `:name`) are not rewritten.
 */
export function plainParameters(sql: string): string {
  let out = '';
  let i = 0;
  while (i < sql.length) {
    const c = sql[i] as string;
    const skipped = skipQuotedOrComment(sql, i);
    if (skipped > i) {
      out += sql.slice(i, skipped);
      i = skipped;
      continue;
    }
    if (c === '?' && !/[0-9]/.test(sql[i + 1] ?? '')) out += '+?';
    else out += c;
    i += 1;
  }
  return out;
}

/** The index after the quoted text, quoted name or comment starting at `i`; `i` when none starts there. */
function skipQuotedOrComment(sql: string, i: number): number {
  const c = sql[i];
  if (c === "'" || c === '"' || c === '`') {
    let j = i + 1;
    for (;;) {
      const close = sql.indexOf(c, j);
      if (close === -1) return sql.length;
      if (sql[close + 1] !== c) return close + 1;
      j = close + 2; // a doubled quote is one quote character inside
    }
  }
  if (c === '[') {
    const close = sql.indexOf(']', i + 1);
    return close === -1 ? sql.length : close + 1;
  }
  if (c === '-' && sql[i + 1] === '-') {
    const end = sql.indexOf('\n', i + 2);
    return end === -1 ? sql.length : end + 1;
  }
  if (c === '/' && sql[i + 1] === '*') {
    const end = sql.indexOf('*/', i + 2);
    return end === -1 ? sql.length : end + 2;
  }
  return i;
}
