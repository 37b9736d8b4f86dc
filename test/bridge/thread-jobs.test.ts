/**
 * One platform job per thread in a burst: a message submitted while a due job
 * of its thread is still queued rides on that job (it flushes every pending
 * item of the thread) instead of queuing one of its own; a job waiting for
 * its retry time is not ridden on, and another thread gets its own job.
 */
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { InboundBridge, POST_MESSAGES_JOB } from '../../src/bridge/inbound.ts';
import { JobQueue } from '../../src/jobs/queue.ts';
import { openStore } from '../../src/store/database.ts';
import { tempDir } from '../support/temp-dir.ts';

function setup() {
  const store = openStore({ path: join(tempDir(), 'jobs.db') });
  onTestFinished(() => store.close());
  const notified: string[] = [];
  const bridge = new InboundBridge({ store, queue: new JobQueue(store), notify: (kind) => notified.push(kind), budget: { maxAttempts: 3, retryForMs: 60_000 } });
  const submit = (threadKey: string, messageId: string) => bridge.submit('mail', { threadKey, messageId, senderId: 'c@example.test', body: messageId });
  const jobOf = async (messageId: string) => (await store.read.sql.get<{ job_id: number }>(`select job_id from inbound_messages where external_id = ?`, [messageId]))!.job_id;
  const jobs = async () => (await store.read.sql.all<{ id: number }>(`select id from jobs where kind = ?`, [POST_MESSAGES_JOB])).map((j) => j.id);
  return { store, submit, jobOf, jobs, notified };
}

describe('platform jobs per thread', () => {
  it('lets a burst of one thread ride on its first due job, and gives another thread its own', async () => {
    const { submit, jobOf, jobs, notified } = setup();
    await submit('T1', 'a');
    await submit('T1', 'b');
    await submit('T1', 'c');
    await submit('T2', 'x');
    const [first, other] = await jobs();
    expect(await jobs()).toHaveLength(2);
    expect([await jobOf('a'), await jobOf('b'), await jobOf('c')]).toEqual([first, first, first]);
    expect(await jobOf('x')).toBe(other);
    expect(notified).toEqual([POST_MESSAGES_JOB, POST_MESSAGES_JOB]); // only new jobs wake the runner
  });

  it('queues a job of its own when the thread’s job waits for a retry time', async () => {
    const { store, submit, jobOf, jobs } = setup();
    await submit('T1', 'a');
    const [waiting] = await jobs();
    await store.write((tx) => tx.sql.run(`update jobs set run_at = ? where id = ?`, [Date.now() + 60_000, waiting]));
    await submit('T1', 'b');
    expect(await jobs()).toHaveLength(2);
    expect(await jobOf('b')).not.toBe(waiting);
  });
});
