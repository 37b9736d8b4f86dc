/**
 * Retention: old finished records go, what is in flight stays however old,
 * and an old inbound message keeps its dedup key (only its text goes), so a
 * mailbox rescanned much later does not post old mail again. Files of the
 * file store go once expired, a batch per write, counted in the log line.
 */
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { InboundBridge } from '../../src/bridge/inbound.ts';
import { pruneExpiredFiles, pruneOlderThan, startRetention } from '../../src/bridge/retention.ts';
import { storeLock } from '../../src/bridge/store-lock.ts';
import { JobQueue } from '../../src/jobs/queue.ts';
import { createLogger } from '../../src/log/logger.ts';
import { openStore } from '../../src/store/database.ts';
import type { Store } from '../../src/store/store.ts';
import { openTestStore, STORE_BACKENDS } from '../support/store-backends.ts';
import { tempDir } from '../support/temp-dir.ts';
import { until } from '../support/wait.ts';

const DAY = 24 * 60 * 60 * 1000;

describe('pruning', () => {
  it('removes old finished deliveries and jobs, clears old inbound text, keeps everything in flight and every dedup key', async () => {
    const store = openStore({ path: join(tempDir(), 'r.db') });
    let clock = Date.now() - 40 * DAY;
    const now = () => clock;
    const queue = new JobQueue(store, { now });
    const bridge = new InboundBridge({ store, queue, budget: { maxAttempts: 3, retryForMs: 60_000 }, now });
    let seq = 0;
    const delivery = (status: 'delivered' | 'failed' | 'rejected') =>
      store.write((tx) => tx.deliveries.insert({ connector: 'c', eventType: 'message_created', dedupKey: `k-${(seq += 1)}`, eventAt: '2026-11-27T08:00:00Z', duplicateOf: null, threadId: 't', chatId: null, body: '{}', bodyTruncated: false, headers: {}, verification: 'valid', status, error: null }, clock));

    const oldDelivered = await delivery('delivered');
    const oldFailed = await delivery('failed');
    const oldRejected = await delivery('rejected');
    await bridge.submit('c', { threadKey: 'T', messageId: 'old-posted', senderId: 's', body: 'old text' });
    await bridge.submit('c', { threadKey: 'T', messageId: 'old-pending', senderId: 's', body: 'still waiting' });
    (await store.write((tx) => tx.sql.run(`update inbound_messages set status = 'posted' where external_id = 'old-posted'`)));
    const receipt = (externalId: string) => store.write((tx) => tx.receipts.record({ connector: 'c', externalId, status: 'read', at: clock, reason: null }, clock));
    await receipt('old-wamid');
    clock = Date.now();
    const fresh = await delivery('delivered');
    await receipt('fresh-wamid');

    // An old finished job goes; the old queued platform job (the thread's two messages share it) stays however old.
    const doneJob = await store.write((tx) => queue.enqueue(tx, { kind: 'k', payload: {} }));
    const [claimed] = await queue.claim('k', 'w', 60_000, 1);
    await queue.completeWith(claimed!.id, 'w');
    await store.write((tx) => tx.sql.run(`update jobs set updated_at = ? where id = ?`, [Date.now() - 40 * DAY, doneJob]));

    const counts = await pruneOlderThan(store, Date.now() - 30 * DAY);
    expect(counts).toMatchObject({ deliveries: 2, inbound: 1, jobs: 1, receipts: 1 });
    expect(await store.read.receipts.of('c', 'old-wamid')).toBeUndefined();
    expect(await store.read.receipts.of('c', 'fresh-wamid')).toMatchObject({ status: 'read' });
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

describe.each(STORE_BACKENDS)('pruning deliveries (%s store)', (backend) => {
  it('takes a pruned delivery’s attempts with it and leaves a kept one’s', async () => {
    const { store } = await openTestStore(backend);
    const now = Date.now();
    const delivery = (key: string, at: number) =>
      store.write(async (tx) => {
        const id = await tx.deliveries.insert({ connector: 'c', eventType: 'message_created', dedupKey: key, eventAt: '2026-11-27T08:00:00Z', duplicateOf: null, threadId: 't', chatId: null, body: '{}', bodyTruncated: false, headers: {}, verification: 'valid', status: 'delivered', error: null }, at);
        for (const attempt of [1, 2]) {
          const opened = await tx.attempts.openDelivery(id, null, attempt, false, at);
          await tx.attempts.closeDelivery(opened, attempt === 1 ? 'failed' : 'delivered', null, null, at);
        }
        return id;
      });
    const old = await delivery('old', now - 40 * DAY);
    const kept = await delivery('kept', now);
    expect(await pruneOlderThan(store, now - 30 * DAY)).toMatchObject({ deliveries: 1 });
    expect(await store.read.deliveries.byId(old)).toBeUndefined();
    const attempts = await store.read.sql.all<{ delivery: number; attempt: number }>('select delivery, attempt from delivery_attempts order by delivery, attempt');
    expect(attempts.map((a) => [Number(a.delivery), a.attempt])).toEqual([[kept, 1], [kept, 2]]);
  });
});

/** `count` files of 1 KiB with 0x00 bytes, expiring at `expiresAt`. */
async function storeFiles(store: Store, prefix: string, count: number, expiresAt: number): Promise<void> {
  await store.write(async (tx) => {
    for (let i = 0; i < count; i++) {
      const id = `${prefix}-${i}`.padEnd(22, '0');
      await tx.files.insert({ id, connector: 'mail', filename: `${i}.bin`, contentType: 'application/octet-stream', size: 1_024, sha256: '0'.repeat(64), content: Buffer.alloc(1_024), createdAt: 0, expiresAt });
    }
  });
}

describe.each(STORE_BACKENDS)('pruning files (%s store)', (backend) => {
  it('deletes expired files a batch per write until none is left, and keeps the rest', async () => {
    const { store } = await openTestStore(backend);
    await storeFiles(store, 'old', 7, 1_000);
    await storeFiles(store, 'due', 1, 5_000); // expires exactly now: its link stopped working
    await storeFiles(store, 'new', 2, 5_001);
    expect(await pruneExpiredFiles(store, 5_000, 3)).toBe(8); // batches of 3, 3, 2
    expect((await store.read.sql.all<{ id: string }>('select id from files order by id')).map((r) => r.id.slice(0, 5))).toEqual(['new-0', 'new-1']);
    expect(await pruneExpiredFiles(store, 5_000, 3)).toBe(0);
  });

  it('is part of the hourly pruning, counted in its log line', async () => {
    const { store } = await openTestStore(backend);
    const now = Date.now();
    await storeFiles(store, 'gone', 3, now - 1);
    await storeFiles(store, 'kept', 1, now + 60_000);
    const lines: string[] = [];
    const stop = startRetention(store, { retentionDays: 30, refusedRetentionHours: 24 }, createLogger('info', { write: (line: string) => void lines.push(line) }), () => now);
    onTestFinished(stop);
    await until(() => lines.some((l) => l.includes('old records pruned')), 5_000, 'the pruning log line');
    expect(JSON.parse(lines.find((l) => l.includes('old records pruned'))!)).toMatchObject({ files: 3, deliveries: 0 });
    expect(await store.read.sql.get('select count(*) as n from files')).toEqual({ n: 1 });
  });
});

describe.each(STORE_BACKENDS)('retention stopping on the %s store', (backend) => {
  it('resolves its stop once the round under way released the retention lock, so a closing store does not keep it held', async () => {
    const { store } = await openTestStore(backend);
    const lock = storeLock(store, 'replica-a', 60_000);
    const lines: string[] = [];
    const stop = startRetention(store, { retentionDays: 30, refusedRetentionHours: 24 }, createLogger('info', { write: (line: string) => void lines.push(line) }), Date.now, lock);
    await stop();
    const lease = await store.read.leases.get('retention');
    expect(lease?.holder).toBe('replica-a');
    expect(lease?.expiresAt).toBe(0); // released, not left to run out
    expect(lines.filter((l) => l.includes('pruning old records failed'))).toEqual([]);
  });

  it('gives up a round still waiting for another replica’s lock when stopped, without an error', async () => {
    const { store } = await openTestStore(backend);
    await store.write((tx) => tx.leases.acquire('retention', 'replica-b', Date.now() + 60_000, Date.now()));
    const lines: string[] = [];
    const stop = startRetention(
      store,
      { retentionDays: 30, refusedRetentionHours: 24 },
      createLogger('info', { write: (line: string) => void lines.push(line) }),
      Date.now,
      storeLock(store, 'replica-a', 60_000, 20),
    );
    await new Promise((r) => setTimeout(r, 100)); // a few tries at the lock
    const started = performance.now();
    await stop();
    expect(performance.now() - started).toBeLessThan(1_000);
    // Replica b lets go: a round that had not given up would take the lock now and prune.
    const b = (await store.read.leases.get('retention'))!;
    await store.write((tx) => tx.leases.release('retention', 'replica-b', b.generation));
    await new Promise((r) => setTimeout(r, 200));
    expect((await store.read.leases.get('retention'))?.holder).toBe('replica-b');
    expect(lines).toEqual([]);
  });
});
