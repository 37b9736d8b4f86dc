/**
 * One platform job per thread in a burst, on both backends: a message
 * submitted while a due job of its thread is still queued rides on that job
 * (it flushes every pending item of the thread) instead of queuing one of its
 * own; a job waiting for its retry time, a running one and a close request's
 * are not ridden on, and another thread gets its own job. On PostgreSQL the
 * job ridden on is locked until the submit commits, so another replica's
 * claim cannot start it before the new message is there to be read.
 */
import { describe, expect, it } from 'vitest';
import { CLOSE_SESSION_JOB, InboundBridge, POST_MESSAGES_JOB, threadOrder } from '../../src/bridge/inbound.ts';
import { JobQueue } from '../../src/jobs/queue.ts';
import { openPostgresStore } from '../../src/store/postgres/pg-store.ts';
import type { Store } from '../../src/store/store.ts';
import { openTestStore, STORE_BACKENDS } from '../support/store-backends.ts';

function bridgeOn(store: Store) {
  const bridge = new InboundBridge({ store, queue: new JobQueue(store), budget: { maxAttempts: 3, retryForMs: 60_000 } });
  return (threadKey: string, messageId: string) => bridge.submit('mail', { threadKey, messageId, senderId: 'c@example.test', body: messageId });
}

async function setup(backend: (typeof STORE_BACKENDS)[number]) {
  const { store, url } = await openTestStore(backend);
  const submit = bridgeOn(store);
  const jobOf = async (messageId: string) =>
    Number((await store.read.sql.get<{ job_id: number }>(`select job_id from inbound_messages where external_id = ?`, [messageId]))!.job_id);
  const jobs = async () => (await store.read.sql.all<{ id: number }>(`select id from jobs where kind = ? order by id`, [POST_MESSAGES_JOB])).map((j) => Number(j.id));
  const threadOf = async (messageId: string) =>
    Number((await store.read.sql.get<{ thread: number }>(`select thread from inbound_messages where external_id = ?`, [messageId]))!.thread);
  const lanes = async () => (await store.read.sql.all<{ lane: string }>(`select lane from jobs where kind = ? order by id`, [POST_MESSAGES_JOB])).map((j) => j.lane);
  return { store, url, submit, jobOf, jobs, threadOf, lanes };
}

describe.each(STORE_BACKENDS)('%s store: platform jobs per thread', (backend) => {
  it('lets a burst of one thread ride on its first due job, and gives another thread its own', async () => {
    const { submit, jobOf, jobs, lanes } = await setup(backend);
    await submit('T1', 'a');
    await submit('T1', 'b');
    await submit('T1', 'c');
    await submit('T2', 'x');
    const [first, other] = await jobs();
    expect(await jobs()).toHaveLength(2);
    expect([await jobOf('a'), await jobOf('b'), await jobOf('c')]).toEqual([first, first, first]);
    expect(await jobOf('x')).toBe(other);
    expect(await lanes()).toEqual(['mail', 'mail']); // each in its connector's lane
  });

  it('queues a job of its own when the thread’s job waits for a retry time', async () => {
    const { store, submit, jobOf, jobs } = await setup(backend);
    await submit('T1', 'a');
    const [waiting] = await jobs();
    await store.write((tx) => tx.sql.run(`update jobs set run_at = ? where id = ?`, [Date.now() + 60_000, waiting]));
    await submit('T1', 'b');
    expect(await jobs()).toHaveLength(2);
    expect(await jobOf('b')).not.toBe(waiting);
  });

  it('queues a job of its own when the thread’s job is running, or only a close request’s job is queued', async () => {
    const { store, submit, jobOf, jobs, threadOf } = await setup(backend);
    await submit('T1', 'a');
    const [running] = await jobs();
    const held = await store.write((tx) => tx.jobs.claim(POST_MESSAGES_JOB, 'worker', Date.now() + 30_000, Date.now(), 10, false, 'mail'));
    expect(held.map((j) => Number(j.id))).toEqual([running]);
    await submit('T1', 'b');
    const [, second] = await jobs();
    expect(await jobOf('b')).toBe(second);
    expect(second).not.toBe(running);

    const thread = await threadOf('a');
    await store.write((tx) => tx.sql.run(`update jobs set kind = ? where id = ?`, [CLOSE_SESSION_JOB, second])); // now the thread's only queued job closes it
    await submit('T1', 'c');
    expect(await jobs()).toHaveLength(2); // `running` and c's own
    expect(await jobOf('c')).not.toBe(second);
    const ofThread = await store.read.sql.get<{ n: number }>(`select count(*) as n from jobs where order_key = ?`, [threadOrder(thread)]);
    expect(Number(ofThread?.n)).toBe(3);
  });

  it.runIf(backend === 'postgres')('holds the job ridden on from another replica’s claim until the submit committed', async () => {
    const { store, url, submit, jobs, threadOf } = await setup(backend);
    await submit('T1', 'a');
    const [queued] = await jobs();
    const thread = await threadOf('a');
    const other = await openPostgresStore({ url: url as string, poolSize: 2, migrate: false });
    try {
      const claimByOther = () => other.write((tx) => tx.jobs.claim(POST_MESSAGES_JOB, 'other', Date.now() + 30_000, Date.now(), 10, false, 'mail'));
      let claimedMeanwhile: unknown[] | undefined;
      await store.write(async (tx) => {
        expect(await tx.jobs.queuedOfOrder(threadOrder(thread), POST_MESSAGES_JOB, Date.now())).toBe(queued);
        claimedMeanwhile = await claimByOther(); // skip locked: passed over while this write holds it
      });
      expect(claimedMeanwhile).toEqual([]);
      expect((await claimByOther()).map((j) => Number(j.id))).toEqual([queued]);
    } finally {
      await other.close();
    }
  });
});
