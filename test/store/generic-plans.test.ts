/**
 * PostgreSQL plans a prepared statement once per connection and, after a few
 * runs, keeps a generic plan: one made without the parameters' values, with
 * the statistics of that moment. A gateway that starts on a new database
 * makes those plans while its tables are empty and not yet analyzed, and
 * keeps them until autovacuum's first ANALYZE. The statements of the hot
 * path must then still find their rows by the right index: a job or an
 * inbound message by its id (not through the index of its status, every job
 * queued or running, every message pending), the next due time by the first
 * entry of the due index, a claim's due jobs in the claim's order (so that
 * it stops at its limit). The take, planned on the due index, read every
 * queued job: 3,600–7,500 pages a take under the replicas benchmark's load;
 * a claim sorted every due job: 37,000–102,000 pages (docs/benchmarks.md at
 * 65810b0, "PostgreSQL: plans made on an empty table"). The order check of both reads
 * a thread's jobs before the one it looks at through the order index; with
 * the thread's key alone in that index it read every unfinished job of the
 * thread, 4,600–10,500 pages a claim behind a backlog of 64 threads
 * (docs/benchmarks.md at 65810b0, "PostgreSQL: the order check in id order"). A lane's
 * claim and next due time read its part of the due index the same way.
 */
import { describe, expect, it } from 'vitest';
import { POST_MESSAGES_JOB as POST_KIND } from '../../src/bridge/inbound.ts';
import { DELIVER_JOB } from '../../src/bridge/webhook-intake.ts';
import { InboundRepo } from '../../src/store/inbound-repo.ts';
import { JobsRepo } from '../../src/store/jobs-repo.ts';
import { numberPlaceholders } from '../../src/store/postgres/pg-sql.ts';
import type { SqlParams } from '../../src/store/sql.ts';
import type { Store } from '../../src/store/store.ts';
import { jobRow } from '../support/job-rows.ts';
import { RecordingSql } from '../support/recording-sql.ts';
import { openTestStore } from '../support/store-backends.ts';

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

/** The table a statement finds one row of by `where id = ?`, or undefined. */
const byIdOf = (sql: string) => /^\s*(?:with \w+ as \(\s*)?(?:update|select .* from)\s+(\w+)\b[\s\S]*\bwhere id = \?/.exec(sql)?.[1];

/** The order check's scan of jobs_order (an index scan, or a bitmap one on the analyzed backlog), bounded by the id of the job `outer` names. */
const orderCheck = (outer: string) =>
  new RegExp(`(Index (Only )?Scan using jobs_order on jobs e|Bitmap Index Scan on jobs_order)\\b[^\\n]*\\n\\s+Index Cond: \\(\\(order_key = ${outer}\\.order_key\\) AND \\(id < ${outer}\\.id\\)\\)`);

describe('postgres store: the generic plans of the hot path', () => {
  it('find a job or a message by its primary key and the next due time by the due index’s first entry, on a table never analyzed and on an analyzed backlog', async () => {
    const { store } = await openTestStore('postgres');
    const now = Date.now();
    const statements = await store.write(async (tx) => {
      const recording = new RecordingSql(tx.sql);
      const jobs = new JobsRepo(recording);
      const first = await jobs.insert(jobRow('deliver:c:thread', now), now);
      const second = await jobs.insert(jobRow('deliver:c:thread', now), now);
      recording.seen.length = 0;
      expect(await jobs.take(second, 'me', now + 30_000, now)).toBe(false); // the first stands before it
      expect(await jobs.take(first, 'me', now + 30_000, now)).toBe(true);
      expect(await jobs.extendLease(first, 'me', now + 60_000)).toBe(true);
      expect(await jobs.complete(first, 'me', now)).toBe(true);
      expect(await jobs.hurry(second, now)).toBe(false); // already due
      expect(await jobs.nextDueAt(DELIVER_JOB)).toBe(now);
      expect((await jobs.claim(DELIVER_JOB, 'me', now + 30_000, now, 16, false)).map((j) => j.id)).toEqual([second]); // the first is done
      const inbound = new InboundRepo(recording);
      await inbound.markPosted(1, 'chat', 'message', true, now); // no such message: planned all the same
      await inbound.markDead(1, 'gone');
      return recording.seen;
    });
    const byId = statements.filter((s) => byIdOf(s.sql) !== undefined);
    expect(byId.map((s) => byIdOf(s.sql))).toEqual(['jobs', 'jobs', 'jobs', 'jobs', 'jobs', 'inbound_messages', 'inbound_messages']);
    const nextDue = statements.find((s) => s.sql.includes('as at from jobs'))!;
    const claim = statements.find((s) => s.sql.includes('where id in ('))!;
    const take = statements.find((s) => s.sql.includes('not exists') && byIdOf(s.sql) === 'jobs')!;

    for (const when of ['not analyzed', 'analyzed'] as const) {
      if (when === 'analyzed') {
        // A backlog of jobs, then the statistics autovacuum would gather for it.
        await store.write(async (tx) => {
          for (let i = 0; i < 2_000; i++) await tx.jobs.insert(jobRow(`deliver:c:${i % 64}`, now), now);
        });
        await store.write((tx) => tx.sql.run('analyze jobs'));
      }
      for (const s of byId) {
        const table = byIdOf(s.sql) as string;
        if (when === 'analyzed' && table !== 'jobs') continue; // an empty table, analyzed, is read whole: rightly
        const plan = await genericPlan(store, s.sql, s.params);
        // The row itself by the primary key (the plan's first scan); other indexes only inside a subplan (the take's
        // order check), if at all.
        expect(plan.split('\n').find((line) => line.includes('Scan')), `${when}:\n${plan}`).toMatch(new RegExp(`Index Scan using ${table}_pkey on ${table}`));
      }
      const duePlan = await genericPlan(store, nextDue.sql, nextDue.params);
      expect(duePlan, `${when}:\n${duePlan}`).toMatch(/Limit[\s\S]*Index (Only )?Scan using jobs_due/);
      expect(duePlan, `${when}:\n${duePlan}`).not.toMatch(/Aggregate|Sort Key: run_at/);
      // The claim reads due jobs in the due index's order and stops at its limit: nothing sorted, no backlog read.
      const claimPlan = await genericPlan(store, claim.sql, claim.params);
      expect(claimPlan, `${when}:\n${claimPlan}`).toMatch(/Index Scan using jobs_due on jobs c/);
      expect(claimPlan, `${when}:\n${claimPlan}`).not.toMatch(/Sort Key: c\.run_at/);
      // The order check reads a thread's jobs before the one looked at, not every unfinished job of the thread.
      expect(claimPlan, `${when}:\n${claimPlan}`).toMatch(orderCheck('c'));
      const takePlan = await genericPlan(store, take.sql, take.params);
      expect(takePlan, `${when}:\n${takePlan}`).toMatch(orderCheck('jobs'));
    }
  });

  it('claim a lane’s jobs and read its next due time through the due index, on a table never analyzed and on an analyzed backlog', async () => {
    const { store } = await openTestStore('postgres');
    const now = Date.now();
    const post = (i: number) => ({ ...jobRow(`thread:${i % 64}`, now, POST_KIND), lane: ['mail', 'redmine'][i % 2]! });
    const statements = await store.write(async (tx) => {
      const recording = new RecordingSql(tx.sql);
      const jobs = new JobsRepo(recording);
      await jobs.insert(post(0), now);
      recording.seen.length = 0;
      expect(await jobs.nextDueAt(POST_KIND, 'mail')).toBe(now);
      expect(await jobs.claim(POST_KIND, 'me', now + 30_000, now, 16, false, 'redmine')).toEqual([]);
      return recording.seen;
    });
    const [nextDue, claim] = statements as [(typeof statements)[number], (typeof statements)[number]];
    for (const when of ['not analyzed', 'analyzed'] as const) {
      if (when === 'analyzed') {
        await store.write(async (tx) => {
          for (let i = 1; i < 2_000; i++) await tx.jobs.insert(post(i), now);
        });
        await store.write((tx) => tx.sql.run('analyze jobs'));
      }
      const duePlan = await genericPlan(store, nextDue.sql, nextDue.params);
      expect(duePlan, `${when}:\n${duePlan}`).toMatch(/Limit[\s\S]*Index (Only )?Scan using jobs_due/);
      expect(duePlan, `${when}:\n${duePlan}`).not.toMatch(/Sort Key: run_at/);
      const claimPlan = await genericPlan(store, claim.sql, claim.params);
      expect(claimPlan, `${when}:\n${claimPlan}`).toMatch(/Index Scan using jobs_due on jobs c/);
      expect(claimPlan, `${when}:\n${claimPlan}`).not.toMatch(/Sort Key: c\.run_at/);
      expect(claimPlan, `${when}:\n${claimPlan}`).toMatch(orderCheck('c'));
    }
  });
});
