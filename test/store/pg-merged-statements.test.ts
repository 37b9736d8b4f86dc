/**
 * Merged statements on PostgreSQL (statement-merger.ts): the same statement
 * about a row of its own, issued side by side by the writes of a batch or the
 * jobs of a claim, goes out once for all of them, each caller answered its
 * own row's result — as the one-row form would have answered it — and each
 * caller's statements keep their order. A merged statement that fails blames
 * nobody: each write runs again alone, and only the one at fault fails.
 */
import pg from 'pg';
import { describe, expect, it, onTestFinished } from 'vitest';
import { INSERT_ORIGINAL, type OriginalInsert } from '../../src/store/delivery-statements.ts';
import { PgSql } from '../../src/store/postgres/pg-sql.ts';
import { isSharedFailure, StatementMerger } from '../../src/store/postgres/statement-merger.ts';
import { Repos } from '../../src/store/repos.ts';
import type { Mergeable, Sql } from '../../src/store/sql.ts';
import type { Store } from '../../src/store/store.ts';
import { jobRow } from '../support/job-rows.ts';
import { postgresDatabase } from '../support/postgres.ts';
import { RecordingSql } from '../support/recording-sql.ts';
import { openTestStore } from '../support/store-backends.ts';

const NOW = 1_800_000_000_000;

/** A transaction on a connection of its own: its merger, its callers' executors, the statements sent (recorded). */
async function transaction(url: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  onTestFinished(() => client.end());
  await client.query('begin');
  const sent = new RecordingSql(new PgSql(client));
  const merger = new StatementMerger(sent);
  const caller = () => new PgSql(client, { merger });
  return { client, sent, merger, caller };
}

const original = (key: string | null, thread = 't'): OriginalInsert => [
  'hook', 'message_created', key, key === null ? null : '2026-11-29T10:00:00Z', thread, 'chat', '{}', 0, '{}', 'valid', 'accepted', null, NOW,
];

/** An accepted delivery of event `key`, as the intake stores it. */
const delivery = (key: string) => ({
  connector: 'hook', eventType: 'message_created', dedupKey: key, eventAt: '2026-11-29T10:00:00Z', duplicateOf: null, threadId: 't', chatId: 'chat',
  body: '{}', bodyTruncated: false, headers: { 'webhook-id': key }, verification: 'valid', status: 'accepted' as const, error: null,
});

describe('PostgreSQL store: merged statements', () => {
  it('sends the side-by-side statements of several callers once, each answered its own row', async () => {
    const { sent, caller } = await transaction(await openStoreUrl());
    const callers = Array.from({ length: 5 }, caller);
    const ids = await Promise.all(callers.map((c, i) => new Repos(c).jobs.insert(jobRow(`k:${i}`, NOW), NOW)));
    expect(sent.seen.filter((s) => s.sql.includes('insert into jobs'))).toHaveLength(1);
    expect(ids).toEqual([...ids].sort((a, b) => a - b)); // in the order asked
    const rows = await callers[0]!.all<{ id: number; order_key: string }>(`select id, order_key from jobs order by id`);
    expect(rows).toEqual(ids.map((id, i) => ({ id, order_key: `k:${i}` })));
  });

  it('answers an event stored before, or twice in one statement, with nothing: only its first is stored', async () => {
    const { caller } = await transaction(await openStoreUrl());
    const first = caller();
    const stored = await first.merged(INSERT_ORIGINAL, original('old'));
    const results = await Promise.all(['new', 'old', 'new', null, 'other', null].map((key) => caller().merged(INSERT_ORIGINAL, original(key))));
    expect(results.map((r) => r !== undefined)).toEqual([true, false, false, true, true, true]);
    const ids = results.flatMap((r) => (r ? [r.id] : []));
    const rows = await first.all<{ id: number; dedup_key: string | null; job_id: number }>(`select id, dedup_key, job_id from deliveries where id > ? order by id`, [stored!.id]);
    expect(rows.map((r) => [r.id, r.dedup_key])).toEqual([[ids[0], 'new'], [ids[1], null], [ids[2], 'other'], [ids[3], null]]);
    // Each names the id its job takes: reserved, one each.
    expect(rows.map((r) => r.job_id)).toEqual(results.flatMap((r) => (r ? [r.jobId] : [])));
    expect(new Set(rows.map((r) => r.job_id)).size).toBe(4);
  });

  it("fails a merged completion as a statement when a job's lease is gone, and answers false alone; a repeated row runs one at a time", async () => {
    const url = await openStoreUrl();
    const setup = await transaction(url);
    const repos = new Repos(setup.caller());
    const ids = await Promise.all([0, 1, 2].map((i) => repos.jobs.insert(jobRow(`c:${i}`, NOW), NOW)));
    await Promise.all(ids.map((id) => repos.jobs.take(id, 'me', NOW + 30_000, NOW)));
    await setup.client.query('commit');
    const owners = ['me', 'someone else', 'me'];
    // Merged: the statement fails (the COMMIT sent with it rolls back), every caller with the same, shared error.
    const { client, caller } = await transaction(url);
    const merged = await Promise.allSettled(ids.map((id, i) => new Repos(caller()).jobs.complete(id, owners[i]!, NOW)));
    expect(merged.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    const reasons = merged.map((r) => (r as PromiseRejectedResult).reason as { code?: string });
    expect(reasons.every((e) => e === reasons[0] && isSharedFailure(e) && e.code === 'TGL01')).toBe(true);
    await client.query('rollback');
    // Alone (as the group writer runs them again): the one whose lease is gone answers false.
    const alone: boolean[] = [];
    for (const [i, id] of ids.entries()) {
      const one = await transaction(url);
      alone.push(await new Repos(one.caller()).jobs.complete(id, owners[i]!, NOW));
      await one.client.query(alone[i] ? 'commit' : 'rollback');
    }
    expect(alone).toEqual([true, false, true]);
    // The same job twice in one tick: the first completes it, the second finds it done, as apart.
    const twice = await transaction(url); // ids[1] still runs for 'me': the attempt of 'someone else' was rolled back
    const [first, second] = await Promise.all([new Repos(twice.caller()).jobs.complete(ids[1]!, 'me', NOW), new Repos(twice.caller()).jobs.complete(ids[1]!, 'me', NOW)]);
    expect([first, second]).toEqual([true, false]);
  });

  it("takes the first of a thread's jobs enqueued side by side, as one by one, and each other thread's", async () => {
    const { sent, caller } = await transaction(await openStoreUrl());
    const keys = ['thread-a', 'thread-a', 'thread-b', null];
    const ids = await Promise.all(keys.map((key) => new Repos(caller()).jobs.insert(jobRow(key, NOW), NOW)));
    sent.seen.length = 0;
    const taken = await Promise.all(ids.map((id) => new Repos(caller()).jobs.take(id, 'me', NOW + 30_000, NOW)));
    expect(taken).toEqual([true, false, true, true]);
    expect(sent.seen.filter((s) => s.sql.includes('update jobs'))).toHaveLength(1);
  });

  it("keeps each caller's order: a statement joins a waiting one only if its caller issued nothing since", async () => {
    const { sent, caller } = await transaction(await openStoreUrl());
    const [a, b] = [caller(), caller()];
    const log: string[] = [];
    const step = (name: string, body: (db: Sql) => Promise<unknown>): Mergeable<string, string> => ({
      name,
      one: async (db, who) => (await body(db), log.push(`${name}:${who}`), who),
      many: async (db, who) => (await body(db), log.push(`${name}:${who.join('+')}`), [...who]),
    });
    const x = step('x', (db) => db.run(`select 1`));
    const y = step('y', (db) => db.run(`select 2`));
    await Promise.all([a.merged(x, 'a'), b.merged(y, 'b'), a.merged(y, 'a'), b.merged(x, 'b')]);
    // a: x then y; b: y then x. a's y joins b's; b's x cannot join a's (b issued y since): it goes last.
    expect(log).toEqual(['x:a', 'y:b+a', 'x:b']);
    // A statement not merged sends what waits first.
    sent.seen.length = 0;
    const merged = a.merged(x, 'a');
    expect(sent.seen).toEqual([]); // waiting for the tick's end
    const next = b.run(`select 3`);
    expect(sent.seen.map((s) => s.sql)).toEqual(['select 1']); // sent before b's statement
    await Promise.all([merged, next]);
    expect(log.at(-1)).toBe('x:a');
  });

  it("reads side by side through the pool in one statement: each delivery's thread, or none", async () => {
    const { store } = await openTestStore('postgres');
    const [a, b] = await store.write(async (tx) => [await tx.threads.ensure('hook', 'key-a', 'thread-a', NOW), await tx.threads.ensure('mail', 'key-b', 'thread-b', NOW)]);
    const before = store.roundTrips!();
    const found = await Promise.all([
      store.read.threads.byThreadId('hook', 'thread-a'),
      store.read.threads.byThreadId('hook', 'thread-b'), // another connector's id
      store.read.threads.byThreadId('mail', 'thread-b'),
      store.read.threads.byThreadId('hook', 'thread-a'),
    ]);
    expect(store.roundTrips!() - before).toBe(1);
    expect(found.map((t) => t?.id)).toEqual([a.id, undefined, b.id, a.id]);
    expect(found[2]).toEqual(b);
  });

  it('fails every caller of a merged statement that fails with the same error, marked shared', async () => {
    const { caller } = await transaction(await openStoreUrl());
    const bad = { ...jobRow('k', NOW), kind: null as unknown as string };
    const results = await Promise.allSettled([jobRow('k', NOW), bad].map((row) => new Repos(caller()).jobs.insert(row, NOW)));
    const errors = results.map((r) => (r.status === 'rejected' ? (r.reason as Error) : undefined));
    expect(errors[0]).toBeDefined();
    expect(errors[0]).toBe(errors[1]);
    expect(isSharedFailure(errors[0])).toBe(true);
    expect((errors[0] as { code?: string }).code).toBe('23502'); // not_null_violation
  });

  it("opens a claim's attempts in one statement: each its delivery's id and body, a delivery asked twice two attempts, a gone one nothing", async () => {
    const { sent, caller } = await transaction(await openStoreUrl());
    const repos = new Repos(caller());
    const one = (await repos.deliveries.insertOriginal({ ...delivery('k1'), body: '{"n":1}' }, NOW))!.id;
    const two = (await repos.deliveries.insertOriginal({ ...delivery('k2'), body: '{"n":2}' }, NOW))!.id;
    const gone = Number(two) + 1_000; // this client reads bigints as text
    const asked = [one, two, one, gone];
    const opened = await Promise.all(asked.map((id, i) => new Repos(caller()).deliveries.openAttempt(id, 100 + i, 1, i === 2, NOW)));
    expect(sent.seen.filter((s) => s.sql.includes('insert into delivery_attempts'))).toHaveLength(1);
    expect(opened.map((o) => o?.delivery)).toEqual([{ id: one, body: '{"n":1}' }, { id: two, body: '{"n":2}' }, { id: one, body: '{"n":1}' }, undefined]);
    // Each caller its own attempt, in the order asked (the replay of `one` after its first run). This client reads
    // bigints as text: compared as numbers.
    const attempts = await caller().all<{ id: number; delivery: number; job_id: number; replay: number; outcome: string }>(
      `select id::int as id, delivery::int as delivery, job_id::int as job_id, replay, outcome from delivery_attempts order by id`,
    );
    expect(attempts).toEqual([
      { id: Number(opened[0]!.attempt), delivery: Number(one), job_id: 100, replay: 0, outcome: 'running' },
      { id: Number(opened[1]!.attempt), delivery: Number(two), job_id: 101, replay: 0, outcome: 'running' },
      { id: Number(opened[2]!.attempt), delivery: Number(one), job_id: 102, replay: 1, outcome: 'running' },
    ]);
  });

  it('in a group, a write whose row fails a merged statement gets its error; its neighbours are stored', async () => {
    const { store } = await openTestStore('postgres');
    const kinds = ['a', 'b', null, 'd'];
    const results = await Promise.allSettled(
      kinds.map((kind) => store.write((tx) => tx.jobs.insert({ ...jobRow(null, NOW), kind: kind as string }, NOW), { batch: 'test' })),
    );
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect(((results[2] as PromiseRejectedResult).reason as { code?: string }).code).toBe('23502');
    expect(await kindsStored(store)).toEqual(['a', 'b', 'd']);
  });
});

async function kindsStored(store: Store): Promise<string[]> {
  return (await store.read.sql.all<{ kind: string }>(`select kind from jobs order by id`)).map((r) => r.kind);
}

/** A migrated database of its own. */
async function openStoreUrl(): Promise<string> {
  const url = await postgresDatabase();
  const { openPostgresStore } = await import('../../src/store/postgres/pg-store.ts');
  const store = await openPostgresStore({ url, wakeups: false });
  await store.close();
  return url;
}
