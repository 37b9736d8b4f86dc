/**
 * The jobs' claim and order indexes hold live jobs only (queued or running):
 * partial indexes, which a database uses only for a query whose condition
 * implies theirs. On both backends, every statement the runner's hot path
 * makes (the claim with and without the lost-lease side, the take of a job
 * just enqueued, the next due time; a lane's claim, its next due time and
 * the look for lanes, on the lane's part of the due index) is planned on them, with a history of
 * finished jobs beside the live ones. A statement rewritten so that it no
 * longer names its status (or, for the order index, `finished_at is null`)
 * as the index does would read every job ever run.
 */
import { describe, expect, it } from 'vitest';
import { DELIVER_JOB } from '../../src/bridge/webhook-intake.ts';
import { JobsRepo } from '../../src/store/jobs-repo.ts';
import { UNINDEXED_ORDER_KIND } from '../../src/store/sqlite/order-index.ts';
import { explainPlans } from '../support/explain-plans.ts';
import { jobRow } from '../support/job-rows.ts';
import { RecordingSql } from '../support/recording-sql.ts';
import { openTestStore, STORE_BACKENDS } from '../support/store-backends.ts';

const KIND = DELIVER_JOB;
const POST_KIND = 'platform.post_messages';

describe.each(STORE_BACKENDS)('%s store: the jobs indexes of live jobs', (backend) => {
  it('plans the claim, the take and the next due time on them, with finished jobs beside', async () => {
    const { store } = await openTestStore(backend);
    const now = Date.now();
    // A history: 200 jobs run and done, 20 dead; then live ones, two of a thread's order key.
    await store.write(async (tx) => {
      for (let i = 0; i < 220; i++) await tx.jobs.insert(jobRow(`deliver:bench:${i}`, now - 1_000), now - 1_000);
      const held = await tx.jobs.claim(KIND, 'old', now + 30_000, now, 220, false);
      expect(held).toHaveLength(220);
      for (const [i, h] of held.entries()) {
        if (i < 200) expect(await tx.jobs.complete(h.id, 'old', now)).toBe(true);
        else expect(await tx.jobs.bury(h.id, 'old', 'gave up', now)).toBe(true);
      }
    });
    const recorder = await store.write(async (tx) => {
      const recording = new RecordingSql(tx.sql);
      const jobs = new JobsRepo(recording);
      const first = await jobs.insert(jobRow('deliver:bench:thread', now), now);
      const second = await jobs.insert(jobRow('deliver:bench:thread', now), now);
      const post = await jobs.insert(jobRow('post:thread', now, POST_KIND), now);
      recording.seen.length = 0; // the inserts: nothing to plan
      expect(await jobs.take(second, 'me', now + 30_000, now)).toBe(false); // the first stands before it
      expect(await jobs.queuedOfOrder('post:thread', POST_KIND, now)).toBe(post);
      // PostgreSQL's claim passes the second over while the first of its key runs; SQLite's runner keeps that order.
      const claimed = (await jobs.claim(KIND, 'me', now + 30_000, now, 16, true)).map((j) => j.id).sort((a, b) => a - b);
      expect(claimed).toEqual(backend === 'sqlite' ? [first, second] : [first]);
      await jobs.claim(KIND, 'me', now + 30_000, now, 16, false);
      return recording;
    });
    const nextDue = new RecordingSql(store.read.sql);
    await new JobsRepo(nextDue).nextDueAt(KIND);
    const [take, queuedOfOrder, claimWithExpired, claim, due] = await explainPlans(store, [...recorder.seen, ...nextDue.seen]);

    // SQLite's take looks for an earlier due job of the kind (its order index leaves deliveries out); PostgreSQL's for
    // an earlier one of the order key.
    expect(take).toContain(backend === 'sqlite' ? 'jobs_due' : 'jobs_order');
    expect(claimWithExpired).toContain('jobs_due');
    expect(claim).toContain('jobs_due');
    // SQLite is told which index (without statistics it took jobs_status); PostgreSQL chooses by its statistics.
    if (backend === 'sqlite') expect(queuedOfOrder).toContain('jobs_order');
    expect(due).toContain('jobs_due');
    for (const plan of [take, claimWithExpired, claim, queuedOfOrder, due]) expect(plan).not.toMatch(/\bSCAN (c|e|jobs)\b(?! USING)|Seq Scan on jobs/);
  });

  it('plans a lane’s claim, its next due time and the look for lanes on its part of the due index, behind a backlog of other lanes', async () => {
    const { store } = await openTestStore(backend);
    const now = Date.now();
    // Three lanes of waiting posts, a running one, and deliveries (no lane) beside them.
    await store.write(async (tx) => {
      for (let i = 0; i < 300; i++) await tx.jobs.insert({ ...jobRow(`post:${i % 30}`, now + (i % 7), POST_KIND), lane: ['mail', 'redmine', 'hooks'][i % 3]! }, now);
      for (let i = 0; i < 100; i++) await tx.jobs.insert(jobRow(`deliver:c:${i}`, now), now);
      await tx.jobs.insert({ ...jobRow('post:running', now, POST_KIND), lane: 'tickets' }, now);
      expect(await tx.jobs.claim(POST_KIND, 'other', now + 30_000, now, 1, false, 'tickets')).toHaveLength(1);
    });
    const recording = new RecordingSql(store.read.sql);
    const jobs = new JobsRepo(recording);
    expect((await jobs.lanes(POST_KIND)).sort()).toEqual(['hooks', 'mail', 'redmine', 'tickets']);
    expect(await jobs.nextDueAt(POST_KIND, 'redmine')).toBe(now);
    const [lanes, due] = await explainPlans(store, recording.seen);
    const claimed = await store.write(async (tx) => {
      const lane = new RecordingSql(tx.sql);
      const claims = new JobsRepo(lane);
      const taken = [
        ...(await claims.claim(POST_KIND, 'me', now + 30_000, now + 10, 5, true, 'redmine')),
        ...(await claims.claim(POST_KIND, 'me', now + 30_000, now + 10, 5, false, 'redmine')),
      ];
      return { taken, seen: lane.seen };
    });
    // Only the lane's jobs (PostgreSQL's claim also passes over a job whose thread has one running: another thread's).
    expect(claimed.taken).toHaveLength(10);
    const owned = await store.read.sql.all<{ lane: string }>(`select lane from jobs where lease_owner = 'me'`);
    expect(owned.map((r) => r.lane)).toEqual(Array(10).fill('redmine'));
    const [claimWithExpired, claim] = await explainPlans(store, claimed.seen);
    for (const plan of [lanes, due, claimWithExpired, claim]) expect(plan).toContain('jobs_due');
    // The lane's own entries, in due order: not the other lanes' waiting jobs, and nothing sorted.
    if (backend === 'sqlite') for (const plan of [claimWithExpired, claim]) expect(plan).toContain('jobs_due (kind=? AND lane=? AND run_at<?)');
    else for (const plan of [due, claimWithExpired, claim]) expect(plan).toMatch(/Index Cond: \(\(kind = '[^']+'::text\) AND \(lane = 'redmine'::text\)/);
    for (const plan of [lanes, due, claimWithExpired, claim]) expect(plan).not.toMatch(/\bSCAN (c|e|j|jobs)\b(?! USING)|Seq Scan on jobs|Sort Key: (c\.)?run_at/);
  });

  it.runIf(backend === 'sqlite')('keeps live deliveries out of the order index: their keys are random, and nothing reads them there', async () => {
    const { store } = await openTestStore(backend);
    const now = Date.now();
    await store.write(async (tx) => {
      for (let i = 0; i < 50; i++) await tx.jobs.insert(jobRow(`deliver:c:${i}`, now), now);
      await tx.jobs.insert(jobRow('post:thread', now, POST_KIND), now);
      await tx.jobs.insert(jobRow('post:thread', now, POST_KIND), now);
    });
    const entries = await store.read.sql.get<{ n: number }>(`select sum(ncell) as n from dbstat where name = 'jobs_order' and pagetype = 'leaf'`);
    expect(entries?.n).toBe(2);
    expect(UNINDEXED_ORDER_KIND).toBe(DELIVER_JOB); // the kind the index leaves out is the deliveries'
  });
});
