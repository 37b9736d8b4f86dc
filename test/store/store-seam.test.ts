/**
 * The store seam as the gateway uses it (openStore on a real SQLite file):
 * a write is atomic whatever else its group holds — the transactional outbox
 * never keeps a message without its job or a job without its message — and
 * `read` sees only committed writes, never a group being written.
 */
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { JobQueue } from '../../src/jobs/queue.ts';
import { openStore } from '../../src/store/database.ts';
import type { NewDelivery } from '../../src/store/deliveries-repo.ts';
import { tempDir } from '../support/temp-dir.ts';

function setup() {
  const groups: number[] = [];
  const store = openStore({ path: join(tempDir(), 'seam.db'), groupCommit: { onCommit: (size) => groups.push(size) } });
  onTestFinished(() => store.close());
  return { store, queue: new JobQueue(store), groups };
}

const delivery = (n: number): NewDelivery => ({
  connector: 'desk', eventType: 'message_created', dedupKey: `k-${n}`, duplicateOf: null, threadId: 't', chatId: null,
  body: '{}', bodyTruncated: false, headers: {}, verification: 'valid', status: 'accepted', error: null,
});

describe('store seam', () => {
  it('keeps the outbox exact inside a group: a write that stored a delivery and its job, then failed, leaves neither; its neighbours keep both', async () => {
    const { store, queue, groups } = setup();
    const accept = (n: number, fail: boolean) =>
      store.write(async (tx) => {
        const id = await tx.deliveries.insert(delivery(n), Date.now());
        await tx.deliveries.setJob(id, await queue.enqueue(tx, { kind: 'connector.deliver', payload: { connector: 'desk', delivery: id } }));
        if (fail) throw new Error(`write ${n} fails after its job`);
        return id;
      });
    const results = await Promise.allSettled([accept(1, false), accept(2, true), accept(3, false)]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(groups).toEqual([3]); // one group of three writes
    const rows = await store.read.sql.all<{ id: number; dedup_key: string; job_id: number }>('select id, dedup_key, job_id from deliveries order by id');
    expect(rows.map((r) => r.dedup_key)).toEqual(['k-1', 'k-3']);
    const jobs = await store.read.sql.all<{ id: number; payload: string }>(`select id, payload from jobs order by id`);
    expect(jobs.map((j) => (JSON.parse(j.payload) as { delivery: number }).delivery)).toEqual(rows.map((r) => r.id));
    expect(jobs.map((j) => j.id)).toEqual(rows.map((r) => r.job_id));
  });

  it('reads only what is committed: a write waiting inside its group is not seen, then is', async () => {
    const { store } = setup();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let stored!: () => void;
    const inside = new Promise<void>((r) => (stored = r));
    const writing = store.write(async (tx) => {
      const id = await tx.deliveries.insert(delivery(1), Date.now());
      stored();
      await gate;
      return id;
    });
    await inside;
    expect(await store.read.deliveries.countByStatus('desk')).toEqual({});
    release();
    const id = await writing;
    expect((await store.read.deliveries.byId(id))?.dedupKey).toBe('k-1');
  });

  it('refuses writes after close, having committed the ones asked for before it', async () => {
    const { store } = setup();
    const before = store.write((tx) => tx.deliveries.insert(delivery(1), Date.now()));
    const closing = store.close();
    await expect(store.write((tx) => tx.deliveries.insert(delivery(2), Date.now()))).rejects.toMatchObject({ code: 'TG_STORE_CLOSED' });
    await closing;
    expect(await before).toBe(1);
    const reopened = openStore({ path: store.location });
    onTestFinished(() => reopened.close());
    expect(await reopened.read.deliveries.countByStatus('desk')).toEqual({ accepted: 1 });
  });
});
