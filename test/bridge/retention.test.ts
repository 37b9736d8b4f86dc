/**
 * Retention: old finished records go, what is in flight stays however old,
 * and an old inbound message keeps its dedup key (only its text goes), so a
 * mailbox rescanned much later does not post old mail again.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InboundBridge } from '../../src/bridge/inbound.ts';
import { pruneOlderThan } from '../../src/bridge/retention.ts';
import { JobQueue } from '../../src/jobs/queue.ts';
import { openStore } from '../../src/store/database.ts';
import { tempDir } from '../support/temp-dir.ts';

const DAY = 24 * 60 * 60 * 1000;

describe('pruning', () => {
  it('removes old finished deliveries and jobs, clears old inbound text, keeps everything in flight and every dedup key', async () => {
    const store = openStore({ path: join(tempDir(), 'r.db') });
    let clock = Date.now() - 40 * DAY;
    const now = () => clock;
    const queue = new JobQueue(store, { now });
    const bridge = new InboundBridge({ store, queue, notify: () => {}, budget: { maxAttempts: 3, retryForMs: 60_000 }, now });
    let seq = 0;
    const delivery = (status: 'delivered' | 'failed' | 'rejected') =>
      store.write((tx) => tx.deliveries.insert({ connector: 'c', eventType: 'message_created', dedupKey: `k-${(seq += 1)}`, duplicateOf: null, threadId: 't', chatId: null, body: '{}', bodyTruncated: false, headers: {}, verification: 'valid', status, error: null }, clock));

    const oldDelivered = await delivery('delivered');
    const oldFailed = await delivery('failed');
    const oldRejected = await delivery('rejected');
    await bridge.submit('c', { threadKey: 'T', messageId: 'old-posted', senderId: 's', body: 'old text' });
    await bridge.submit('c', { threadKey: 'T', messageId: 'old-pending', senderId: 's', body: 'still waiting' });
    (await store.write((tx) => tx.sql.run(`update inbound_messages set status = 'posted' where external_id = 'old-posted'`)));
    clock = Date.now();
    const fresh = await delivery('delivered');

    // An old finished job goes; the old queued platform job (the thread's two messages share it) stays however old.
    const doneJob = await store.write((tx) => queue.enqueue(tx, { kind: 'k', payload: {} }));
    const [claimed] = await queue.claim('k', 'w', 60_000, 1);
    await queue.completeWith(claimed!.id, 'w');
    await store.write((tx) => tx.sql.run(`update jobs set updated_at = ? where id = ?`, [Date.now() - 40 * DAY, doneJob]));

    const counts = await pruneOlderThan(store, Date.now() - 30 * DAY);
    expect(counts).toMatchObject({ deliveries: 2, inbound: 1, jobs: 1 });
    expect(await queue.get(doneJob)).toBeUndefined();
    expect(await queue.countByStatus()).toMatchObject({ queued: 1, done: 0 });
    const statuses = await Promise.all([oldDelivered, oldFailed, oldRejected, fresh].map(async (id) => (await store.read.deliveries.byId(id))?.status ?? 'gone'));
    expect(statuses).toEqual(['gone', 'failed', 'gone', 'delivered']);
    const rows = (await store.read.sql.all(`select external_id as id, status, body from inbound_messages order by rowid`));
    expect(rows).toEqual([
      { id: 'old-posted', status: 'posted', body: '' },
      { id: 'old-pending', status: 'pending', body: 'still waiting' },
    ]);
    // The old message's dedup key still holds.
    expect((await bridge.submit('c', { threadKey: 'T', messageId: 'old-posted', senderId: 's', body: 'old text' })).duplicate).toBe(true);
    await store.close();
  });
});
