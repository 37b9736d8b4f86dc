/**
 * Each statement's plan, explained inside one write: PostgreSQL's `explain` with sequential scans discouraged (as on a
 * large table; without statistics a small one would be read whole), SQLite's `explain query plan`. Recorded statements
 * (support/recording-sql.ts) are what a repository call sent.
 */
import type { SqlParams } from '../../src/store/sql.ts';
import type { Store } from '../../src/store/store.ts';

export async function explainPlans(store: Store, statements: readonly { sql: string; params: SqlParams }[]): Promise<string[]> {
  return store.write(async (tx) => {
    const postgres = tx.sql.dialect === 'postgres';
    if (postgres) await tx.sql.run('set local enable_seqscan = off');
    const out: string[] = [];
    for (const s of statements) {
      const rows = await tx.sql.all<Record<string, string>>(`${postgres ? 'explain' : 'explain query plan'} ${s.sql}`, s.params);
      out.push(rows.map((r) => (postgres ? r['QUERY PLAN'] : r.detail)).join('\n'));
    }
    return out;
  });
}
