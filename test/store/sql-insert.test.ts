/**
 * `Sql.insert`: a one-row INSERT written without RETURNING, answered with the
 * new row's id (SQLite's rowid; PostgreSQL's `returning id`), or undefined
 * when nothing was inserted. The write path's inserts and the take of a job
 * just enqueued go through it, and build what RETURNING gave them from what
 * they wrote: on both backends that must be the row as stored. On SQLite none
 * of those statements may open a temporary b-tree (a RETURNING clause opens
 * one, with a page cache of its own, at every run).
 */
import { describe, expect, it } from 'vitest';
import { JobQueue, type Job } from '../../src/jobs/queue.ts';
import type { NewDelivery } from '../../src/store/deliveries-repo.ts';
import { Repos } from '../../src/store/repos.ts';
import { RecordingSql } from '../support/recording-sql.ts';
import { openTestStore, STORE_BACKENDS } from '../support/store-backends.ts';

const NOW = 1_790_000_000_000;

describe.each(STORE_BACKENDS)('%s store: Sql.insert', (backend) => {
  it("answers the new row's id, and undefined when a conflict or an empty select inserted nothing", async () => {
    const { store } = await openTestStore(backend);
    const [first, second, conflict, none] = await store.write(async (tx) => {
      const insert = `insert into threads (connector, thread_key, thread_id, created_at, updated_at) values (?, ?, ?, ?, ?)`;
      const a = await tx.sql.insert(insert, ['mail', 'A', 'thread-A', NOW, NOW]);
      const b = await tx.sql.insert(insert, ['mail', 'B', 'thread-B', NOW, NOW]);
      const again = await tx.sql.insert(`${insert} on conflict (connector, thread_key) do nothing`, ['mail', 'A', 'thread-A2', NOW, NOW]);
      const empty = await tx.sql.insert(
        `insert into threads (connector, thread_key, thread_id, created_at, updated_at) select ?, ?, ?, ?, ? where 1 = 0`,
        ['mail', 'C', 'thread-C', NOW, NOW],
      );
      return [a, b, again, empty];
    });
    expect(conflict).toBeUndefined();
    expect(none).toBeUndefined();
    expect(Number(second)).toBeGreaterThan(Number(first));
    const rows = await store.read.sql.all<{ id: number; thread_key: string; thread_id: string }>(`select id, thread_key, thread_id from threads order by id`);
    expect(rows.map((r) => [Number(r.id), r.thread_key, r.thread_id])).toEqual([
      [first, 'A', 'thread-A'],
      [second, 'B', 'thread-B'],
    ]);
  });

  it('a new thread is answered as it is stored', async () => {
    const { store } = await openTestStore(backend);
    const created = await store.write((tx) => tx.threads.ensure('mail', 'key-1', 'thread-1', NOW));
    expect(await store.read.threads.byId(created.id)).toEqual(created);
    expect(created).toMatchObject({ connector: 'mail', threadKey: 'key-1', threadId: 'thread-1', chatId: null, mappingId: null, closed: false });
  });

  it('a job taken in the write that enqueues it is the job as stored', async () => {
    const { store } = await openTestStore(backend);
    const queue = new JobQueue(store, { now: () => NOW });
    let taken: Job | undefined;
    queue.onEnqueued(async (tx, job) => {
      taken = await queue.take(tx, job, 'owner-1', 30_000);
    });
    const id = await store.write((tx) =>
      queue.enqueue(tx, { kind: 'connector.deliver', payload: { delivery: 7, thread: 't' }, orderKey: 'deliver:x:t', maxAttempts: 4, retryForMs: 60_000 }),
    );
    // The row as stored: what a claim of it would have answered.
    const stored = await store.read.sql.get<{ status: string; attempts: number; lease_owner: string; max_attempts: number; give_up_at: number; run_at: number; payload: string; last_error: string | null }>(
      `select status, attempts, lease_owner, max_attempts, give_up_at, run_at, payload, last_error from jobs where id = ?`,
      [id],
    );
    expect(taken).toEqual({
      id,
      kind: 'connector.deliver',
      payload: JSON.parse(String(stored?.payload)),
      status: stored?.status,
      attempts: Number(stored?.attempts),
      maxAttempts: Number(stored?.max_attempts),
      giveUpAt: Number(stored?.give_up_at),
      runAt: Number(stored?.run_at),
      lastError: stored?.last_error,
      lastTry: false,
    });
    expect(stored).toMatchObject({ status: 'running', lease_owner: 'owner-1' });
    expect(Number(stored?.attempts)).toBe(1);
  });
});

describe('sqlite store: the write path opens no temporary b-tree', () => {
  it("neither a webhook's write and its delivery's attempt nor a message's write plans one", async () => {
    const { store } = await openTestStore('sqlite');
    const seen = await store.write(async (tx) => {
      const recording = new RecordingSql(tx.sql);
      const repos = new Repos(recording);
      const delivery = (await repos.deliveries.insertOriginal({ ...webhook(), duplicateOf: null, status: 'accepted' }, NOW))?.id;
      const job = await repos.jobs.insert(
        { kind: 'connector.deliver', payload: '{}', orderKey: 'deliver:hook:t', maxAttempts: 3, retryForMs: 60_000, giveUpAt: NOW + 60_000, runAt: NOW },
        NOW,
      );
      await repos.deliveries.setJob(delivery as number, job);
      expect(await repos.jobs.take(job, 'owner', NOW + 30_000, NOW)).toBe(true);
      // The claiming write's part (OutboundDispatch.openAttempt): the delivery read, its attempt opened.
      expect((await repos.deliveries.byId(delivery as number))?.id).toBe(delivery);
      expect(await repos.attempts.openDelivery(delivery as number, job, 1, false, NOW)).toBeTypeOf('number');
      const thread = await repos.threads.ensure('mail', 'key', 'thread-key', NOW);
      await repos.inbound.insertIfNew(
        {
          connector: 'mail', externalId: 'm1', kind: 'message', thread: thread.id, senderId: 'c@example.test', senderName: null,
          senderType: 'visitor', body: 'hello', fullText: null, variables: null, skipWaitingState: false, closeSession: false,
        },
        NOW,
      );
      return recording.seen.map((s) => s.sql);
    });
    expect(seen.length).toBeGreaterThanOrEqual(9);
    const temporary = await store.write(async (tx) => {
      const found: string[] = [];
      for (const sql of seen) {
        const plan = await tx.sql.all<{ opcode: string }>(`explain ${sql.replace(/\?/g, 'null')}`);
        if (plan.some((op) => op.opcode === 'OpenEphemeral')) found.push(sql.replace(/\s+/g, ' ').slice(0, 80));
      }
      return found;
    });
    expect(temporary).toEqual([]);
  });
});

function webhook(): Omit<NewDelivery, 'duplicateOf' | 'status'> {
  return {
    connector: 'hook', eventType: 'message_created', dedupKey: 'message_created:e-1', eventAt: '2026-11-27T08:00:00Z', threadId: 't', chatId: 'c', body: '{}',
    bodyTruncated: false, headers: {}, verification: 'valid', error: null,
  };
}
