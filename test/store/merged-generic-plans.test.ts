/**
 * The generic plans of the merged statements (statement-merger.ts), made as
 * the merger has them made: without sequential scans, once per statement.
 * Each finds the rows it changes or reads by the table's primary key, on a
 * table never analyzed (where PostgreSQL thinks a table a few pages, and
 * joined with `unnest` read the deliveries whole: 1.2 ms a statement behind
 * 60,000 rows when measured) and on an analyzed backlog.
 */
import { describe, expect, it } from 'vitest';
import { CLOSE_ATTEMPT, DELIVERY_BY_ID, OPEN_ATTEMPT_READING, RECORD_OUTCOME, SET_DELIVERY_JOB } from '../../src/store/delivery-statements.ts';
import { COMPLETE_JOB, TAKE_JOB } from '../../src/store/job-statements.ts';
import { numberPlaceholders } from '../../src/store/postgres/pg-sql.ts';
import { MERGED_PLANS } from '../../src/store/postgres/statement-merger.ts';
import type { Mergeable, Sql, SqlParams } from '../../src/store/sql.ts';
import type { Store } from '../../src/store/store.ts';
import { BY_THREAD_ID } from '../../src/store/threads-repo.ts';
import { jobRow } from '../support/job-rows.ts';
import { RecordingSql } from '../support/recording-sql.ts';
import { openTestStore } from '../support/store-backends.ts';

const NOW = 1_800_000_000_000;

const literal = (v: unknown): string => {
  if (Array.isArray(v)) return `'{${v.map((x) => (x === null ? 'NULL' : `"${String(x)}"`)).join(',')}}'`;
  return typeof v === 'number' ? String(v) : `'${String(v).replaceAll("'", "''")}'`;
};

/** The plan the merger's settings give `sql` (a write's; `read`: the pool's, none but generic), explained with `params`. */
async function mergedPlan(store: Store, sql: string, params: SqlParams, read = false): Promise<string> {
  return store.write(async (tx) => {
    await tx.sql.run(read ? 'set local plan_cache_mode = force_generic_plan' : MERGED_PLANS);
    await tx.sql.run(`prepare tg_plan as ${numberPlaceholders(sql).text}`);
    const rows = await tx.sql.all<Record<string, string>>(`explain execute tg_plan(${(params as unknown[]).map(literal).join(', ')})`);
    await tx.sql.run('deallocate tg_plan');
    return rows.map((r) => r['QUERY PLAN']).join('\n');
  });
}

/** The many-rows statement `statement` sends for `rows`, as text and parameters (run once, then rolled back). */
async function manySql<P>(store: Store, statement: Mergeable<P, unknown>, rows: P[]): Promise<{ sql: string; params: SqlParams }> {
  let seen: { sql: string; params: SqlParams } | undefined;
  await store
    .write(async (tx) => {
      const recording = new RecordingSql(tx.sql as Sql);
      await statement.many(recording, rows).catch(() => {}); // a completion of jobs not there fails: recorded all the same
      seen = recording.seen[0];
      throw new Error('rolled back');
    })
    .catch(() => {});
  return seen!;
}

describe('postgres store: the generic plans of the merged statements', () => {
  it('find their rows by the primary key, on a table never analyzed and on an analyzed backlog', async () => {
    const { store } = await openTestStore('postgres');
    const statements = [
      ['jobs', await manySql(store, COMPLETE_JOB, [[1, 'me', NOW, 0], [2, 'me', NOW, 1]])],
      ['jobs', await manySql(store, TAKE_JOB, [[1, 'me', NOW + 30_000, NOW], [2, 'me', NOW + 30_000, NOW]])],
      ['deliveries', await manySql(store, SET_DELIVERY_JOB, [[1, 10], [2, 20]])],
      ['deliveries', await manySql(store, RECORD_OUTCOME, [[1, 'delivered', null, 'x', NOW], [2, 'skipped', 'why', null, NOW]])],
      ['deliveries', await manySql(store, DELIVERY_BY_ID, [1, 2])],
      ['deliveries', await manySql(store, OPEN_ATTEMPT_READING, [[1, 10, 1, 0, NOW], [2, 20, 1, 0, NOW]])],
      ['delivery_attempts', await manySql(store, CLOSE_ATTEMPT, [[1, NOW, 'delivered', null, 'x'], [2, NOW, 'failed', 'no', null]])],
    ] as const;
    for (const when of ['not analyzed', 'analyzed'] as const) {
      if (when === 'analyzed') {
        await store.write(async (tx) => {
          for (let i = 0; i < 2_000; i++) {
            const job = await tx.jobs.insert(jobRow(`deliver:c:${i % 64}`, NOW), NOW);
            const body = { connector: 'c', eventType: 'message_created', dedupKey: `k${i}`, eventAt: 'at', threadId: 't', chatId: null, body: '{}', bodyTruncated: false, headers: {}, verification: 'valid', status: 'accepted' as const, error: null };
            const delivery = (await tx.deliveries.insertOriginal({ ...body, duplicateOf: null }, NOW))!.id;
            await tx.attempts.openDelivery(delivery, job, 1, false, NOW);
          }
        });
        for (const table of ['jobs', 'deliveries', 'delivery_attempts']) await store.write((tx) => tx.sql.run(`analyze ${table}`));
      }
      for (const [table, { sql, params }] of statements) {
        const plan = await mergedPlan(store, sql, params);
        expect(plan, `${when}:\n${plan}`).toMatch(new RegExp(`(Index Scan using ${table}_pkey on ${table}|Bitmap Index Scan on ${table}_pkey)`));
        expect(plan, `${when}:\n${plan}`).not.toMatch(/Seq Scan/);
      }
    }
  });

  // The pool's reads have no transaction to set anything in: a few threads are read whole, rightly; many, by the index.
  it("read a delivery's thread by the thread id's index once many threads are analyzed", async () => {
    const { store } = await openTestStore('postgres');
    await store.write((tx) =>
      tx.sql.run(`insert into threads (connector, thread_key, thread_id, created_at, updated_at) select 'c', 'key-' || i, 'thread-' || i, ?, ? from generate_series(1, 20000) i`, [NOW, NOW]),
    );
    await store.write((tx) => tx.sql.run('analyze threads'));
    const recording = new RecordingSql(store.read.sql);
    await BY_THREAD_ID.many(recording, [['c', 'thread-1'], ['c', 'thread-2']]);
    const bySide = recording.seen[0]!;
    const plan = await mergedPlan(store, bySide.sql, bySide.params, true);
    expect(plan).toMatch(/threads_thread_id/);
    expect(plan).not.toMatch(/Seq Scan/);
  });
});
