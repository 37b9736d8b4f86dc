/**
 * PostgreSQL plans a prepared statement once per connection and, after a few
 * runs, keeps a generic plan: one made without the parameters' values, with
 * the statistics of that moment. A gateway that starts on a new database
 * makes those plans while its tables are empty and not yet analyzed, and
 * keeps them until autovacuum's first ANALYZE. The runner's statements on
 * the hot path must then still find their rows by the right index: the take
 * of a job just enqueued by its id, the next due time by the first entry of
 * the due index. Planned on the due index instead, each read every queued
 * job (4,000–10,000 pages a statement under the replicas benchmark's load;
 * docs/benchmarks.md, "PostgreSQL: plans made on an empty table").
 */
import { describe, expect, it } from 'vitest';
import { DELIVER_JOB } from '../../src/bridge/webhook-intake.ts';
import { JobsRepo, type NewJobRow } from '../../src/store/jobs-repo.ts';
import { numberPlaceholders } from '../../src/store/postgres/pg-sql.ts';
import type { SqlParams } from '../../src/store/sql.ts';
import type { Store } from '../../src/store/store.ts';
import { RecordingSql } from '../support/recording-sql.ts';
import { openTestStore } from '../support/store-backends.ts';

const job = (orderKey: string, now: number): NewJobRow => ({
  kind: DELIVER_JOB,
  payload: '{}',
  orderKey,
  maxAttempts: 3,
  retryForMs: 60_000,
  giveUpAt: now + 60_000,
  runAt: now,
});

const literal = (v: unknown) => (typeof v === 'number' ? String(v) : `'${String(v).replaceAll("'", "''")}'`);

/** The generic plan PostgreSQL keeps for `sql` (as prepared by the store), explained with `params`. */
async function genericPlan(store: Store, sql: string, params: SqlParams): Promise<string> {
  return store.write(async (tx) => {
    await tx.sql.run('set local plan_cache_mode = force_generic_plan');
    await tx.sql.run(`prepare tg_plan as ${numberPlaceholders(sql).text}`);
    const rows = await tx.sql.all<Record<string, string>>(`explain execute tg_plan(${(params as unknown[]).map(literal).join(', ')})`);
    await tx.sql.run('deallocate tg_plan');
    return rows.map((r) => r['QUERY PLAN']).join('\n');
  });
}

describe('postgres store: the runner’s generic plans', () => {
  it('take a job by its id and find the next due time by the due index’s first entry, on a table never analyzed and on an analyzed backlog', async () => {
    const { store } = await openTestStore('postgres');
    const now = Date.now();
    const statements = await store.write(async (tx) => {
      const recording = new RecordingSql(tx.sql);
      const jobs = new JobsRepo(recording);
      const first = await jobs.insert(job('deliver:c:thread', now), now);
      const second = await jobs.insert(job('deliver:c:thread', now), now);
      recording.seen.length = 0;
      expect(await jobs.take(second, 'me', now + 30_000, now)).toBe(false); // the first stands before it
      expect(await jobs.take(first, 'me', now + 30_000, now)).toBe(true);
      expect(await jobs.nextDueAt(DELIVER_JOB)).toBe(now);
      return recording.seen;
    });
    const [take, , nextDue] = statements as [(typeof statements)[0], unknown, (typeof statements)[0]];

    for (const when of ['not analyzed', 'analyzed'] as const) {
      if (when === 'analyzed') {
        // A backlog, then the statistics autovacuum would gather for it.
        await store.write(async (tx) => {
          for (let i = 0; i < 2_000; i++) await tx.jobs.insert(job(`deliver:c:${i % 64}`, now), now);
        });
        await store.write((tx) => tx.sql.run('analyze jobs'));
      }
      const takePlan = await genericPlan(store, take.sql, take.params);
      // The job itself by the primary key; the due index only inside the order check's subplan, if at all.
      expect(takePlan.split('\n').slice(0, 3).join('\n'), `${when}:\n${takePlan}`).toMatch(/Index Scan using jobs_pkey on jobs/);
      const duePlan = await genericPlan(store, nextDue.sql, nextDue.params);
      expect(duePlan, `${when}:\n${duePlan}`).toMatch(/Limit[\s\S]*Index (Only )?Scan using jobs_due/);
      expect(duePlan, `${when}:\n${duePlan}`).not.toMatch(/Aggregate/);
    }
  });
});
