/**
 * One round trip per group on the PostgreSQL store (issue 55): the webhooks
 * of one event-loop turn run at once in their group's transaction (a batch,
 * store.ts `WriteOptions`), so a group of twenty costs the round trips of
 * one — duplicates, the runner's take on enqueue and a thread's order
 * included. A connection dropped between a group's statements stores nothing
 * of the group, and the same webhooks sent again are stored once each.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { Store } from '../../src/store/store.ts';
import { startPgIntake, type PgIntake } from '../support/pg-intake.ts';
import { postgresDatabase } from '../support/postgres.ts';

const GROUP = 20;

async function gateway(): Promise<PgIntake & { url: string }> {
  const url = await postgresDatabase();
  const intake = await startPgIntake(url);
  onTestFinished(() => intake.close());
  return { ...intake, url };
}

/** The store's round trips while `work` runs. */
async function roundTripsOf(store: Store, work: () => Promise<unknown>): Promise<number> {
  const before = store.roundTrips!();
  await work();
  return store.roundTrips!() - before;
}

const count = async (store: Store, sql: string) => (await store.read.sql.get<{ n: number }>(sql))!.n;

describe('PostgreSQL store: one round trip per group', () => {
  it('stores a group of twenty webhooks in the round trips of one', async () => {
    const { store, send } = await gateway();
    const one = await roundTripsOf(store, () => send('t-one'));
    const twenty = await roundTripsOf(store, () => Promise.all(Array.from({ length: GROUP }, (_, i) => send(`t-${i}`))));
    // BEGIN with the delivery; the job, the take and the COMMIT (the write said it sent its last statement). Twenty:
    // the same, or fewer when a write's next statement goes out before its neighbours' answers came back.
    expect(one).toBeLessThanOrEqual(2);
    expect(twenty).toBeLessThanOrEqual(one);
    // Every one stored with its job, taken on enqueue (running), the job's id on the delivery.
    expect(await count(store, `select count(*) as n from deliveries d join jobs j on j.id = d.job_id where j.status = 'running'`)).toBe(GROUP + 2);
  });

  it('records duplicates within a group once each, one original per event, in the same round trips', async () => {
    const { store, send } = await gateway();
    const ids = Array.from({ length: GROUP / 2 }, () => randomUUID());
    const one = await roundTripsOf(store, () => send('t-single'));
    const twice = await roundTripsOf(store, () => Promise.all([...ids, ...ids].map((id, i) => send(`t-${i % ids.length}`, id))));
    expect(twice).toBeLessThanOrEqual(one);
    expect(await count(store, `select count(*) as n from deliveries where status = 'accepted' and duplicate_of is null and thread_id like 't-%' and thread_id <> 't-single'`)).toBe(ids.length);
    expect(await count(store, `select count(*) as n from deliveries where status = 'duplicate'`)).toBe(ids.length);
    expect(await count(store, `select count(*) as n from jobs`)).toBe(ids.length + 2);
  });

  it("keeps one thread's webhooks of a group in the order they arrived: the first taken, the rest queued behind it", async () => {
    const { store, send } = await gateway();
    const messages = Array.from({ length: 8 }, () => randomUUID());
    await Promise.all(messages.map((id) => send('t-ordered', id)));
    const rows = await store.read.sql.all<{ message: string; status: string }>(
      `select d.body::json->'message'->>'id' as message, j.status from deliveries d join jobs j on j.id = d.job_id
       where d.thread_id = 't-ordered' order by j.id`,
    );
    expect(rows.map((r) => r.message)).toEqual(messages);
    expect(rows.map((r) => r.status)).toEqual(['running', ...messages.slice(1).map(() => 'queued')]);
  });

  it('stores nothing of a group whose connection dropped between its statements; sent again, each is stored once', async () => {
    const { store, url, send } = await gateway();
    const killer = new pg.Client({ connectionString: url });
    await killer.connect();
    onTestFinished(() => killer.end());
    const before = await count(store, 'select count(*) as n from deliveries');
    const messages = Array.from({ length: GROUP }, () => randomUUID());
    // A write of the same batch, in the same turn: after the first statements went out, it ends the group's backend.
    const drop = store.write(
      async (tx) => {
        const { pid } = (await tx.sql.get<{ pid: number }>('select pg_backend_pid() as pid'))!;
        await killer.query('select pg_terminate_backend($1)', [pid]);
        await tx.sql.get('select 1');
      },
      { batch: 'webhook' },
    );
    const first = await Promise.allSettled([...messages.map((id, i) => send(`t-${i}`, id)), drop]);
    expect(first.every((r) => r.status === 'rejected')).toBe(true);
    expect((first[0] as PromiseRejectedResult).reason).toMatchObject({ code: 'TG_STORE_UNAVAILABLE' });
    expect(await count(store, 'select count(*) as n from deliveries')).toBe(before);
    expect(await count(store, `select count(*) as n from jobs`)).toBe(before);
    // The platform sends them again: each is stored once, as an original with its job, none as a duplicate.
    await Promise.all(messages.map((id, i) => send(`t-${i}`, id)));
    expect(await count(store, 'select count(*) as n from deliveries')).toBe(before + GROUP);
    expect(await count(store, `select count(*) as n from deliveries where status = 'duplicate'`)).toBe(0);
    expect(await count(store, `select count(*) as n from deliveries d join jobs j on j.id = d.job_id`)).toBe(before + GROUP);
  });
});
