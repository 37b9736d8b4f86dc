/**
 * The store's contract, held by both backends (SQLite file, PostgreSQL
 * database): what the repositories promise the bridge, the queue and the
 * connectors, including the races only PostgreSQL replicas can run into.
 */
import { describe, expect, it } from 'vitest';
import { InboundBridge } from '../../src/bridge/inbound.ts';
import { JobQueue } from '../../src/jobs/queue.ts';
import { listJobs } from '../../src/store/job-queries.ts';
import type { NewDelivery } from '../../src/store/deliveries-repo.ts';
import { openTestStore, STORE_BACKENDS } from '../support/store-backends.ts';

const delivery = (n: number): NewDelivery => ({
  connector: 'desk', eventType: 'message_created', dedupKey: `k-${n}`, eventAt: '2026-11-27T08:00:00Z', duplicateOf: null, threadId: 't', chatId: null,
  body: '{}', bodyTruncated: false, headers: {}, verification: 'valid', status: 'accepted', error: null,
});

describe.each(STORE_BACKENDS)('the %s store', (backend) => {
  it('keeps the outbox exact: a write that stored a delivery and its job, then failed, leaves neither; the others keep both', async () => {
    const { store } = await openTestStore(backend);
    const queue = new JobQueue(store);
    const accept = (n: number, fail: boolean) =>
      store.write(async (tx) => {
        const id = await tx.deliveries.insert(delivery(n), Date.now());
        await tx.deliveries.setJob(id, await queue.enqueue(tx, { kind: 'connector.deliver', payload: { connector: 'desk', delivery: id } }));
        if (fail) throw new Error(`write ${n} fails after its job`);
        return id;
      });
    const results = await Promise.allSettled([accept(1, false), accept(2, true), accept(3, false)]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const rows = await store.read.sql.all<{ id: number; dedup_key: string; job_id: number }>('select id, dedup_key, job_id from deliveries order by id');
    expect(rows.map((r) => r.dedup_key)).toEqual(['k-1', 'k-3']);
    const jobs = await store.read.sql.all<{ id: number; payload: string }>('select id, payload from jobs order by id');
    expect(jobs.map((j) => (JSON.parse(j.payload) as { delivery: number }).delivery)).toEqual(rows.map((r) => r.id));
    expect(jobs.map((j) => j.id)).toEqual(rows.map((r) => r.job_id));
    expect(typeof rows[0]!.id).toBe('number'); // ids are numbers on both (PostgreSQL's bigint parsed)
  });

  it('reads only what is committed, and refuses a transaction handle used after its write', async () => {
    const { store } = await openTestStore(backend);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let stored!: () => void;
    const inside = new Promise<void>((r) => (stored = r));
    let kept: Parameters<Parameters<typeof store.write>[0]>[0] | undefined;
    const writing = store.write(async (tx) => {
      kept = tx;
      await tx.deliveries.insert(delivery(1), Date.now());
      stored();
      await gate;
    });
    await inside;
    expect(await store.read.deliveries.countByStatus('desk')).toEqual({});
    release();
    await writing;
    expect(await store.read.deliveries.countByStatus('desk')).toEqual({ accepted: 1 });
    await expect(kept!.deliveries.insert(delivery(2), Date.now())).rejects.toMatchObject({ code: 'TG_STORE_TX_ENDED' });
  });

  it('threads: ensure is idempotent; references keep their attachment order and their first thread', async () => {
    const { store } = await openTestStore(backend);
    const [a, again, b] = await store.write(async (tx) => [
      await tx.threads.ensure('mail', 'A', 'tid-a', 1),
      await tx.threads.ensure('mail', 'A', 'tid-other', 2),
      await tx.threads.ensure('mail', 'B', 'tid-b', 3),
    ]);
    expect(again.id).toBe(a.id);
    expect(again.threadId).toBe('tid-a');
    await store.write(async (tx) => {
      await tx.threads.attach('mail', a.id, ['<z>', '<a>', '<m>'], 4);
      await tx.threads.attach('mail', b.id, ['<a>', '<b>'], 5);
    });
    expect(await store.read.threads.references(a.id)).toEqual(['<z>', '<a>', '<m>']);
    expect(await store.read.threads.references(b.id)).toEqual(['<b>']);
    expect((await store.read.threads.byReference('mail', '<a>'))?.threadKey).toBe('A');
    expect(await store.read.threads.byReference('other', '<a>')).toBeUndefined();
    await store.write((tx) => tx.threads.setClosed(a.id, true, 6));
    expect((await store.read.threads.byKey('mail', 'A'))?.closed).toBe(true);
  });

  it('connector state: JSON values set, replaced, read and deleted per connector', async () => {
    const { store } = await openTestStore(backend);
    await store.write(async (tx) => {
      await tx.state.set('mail', 'cursor', { uidValidity: '7', lastUid: 3 }, 1);
      await tx.state.set('mail', 'cursor', { uidValidity: '7', lastUid: 9 }, 2);
      await tx.state.set('desk', 'cursor', 'other', 2);
    });
    expect(await store.read.state.get('mail', 'cursor')).toEqual({ uidValidity: '7', lastUid: 9 });
    await store.write((tx) => tx.state.delete('mail', 'cursor'));
    expect(await store.read.state.get('mail', 'cursor')).toBeUndefined();
    expect(await store.read.state.get('desk', 'cursor')).toBe('other');
  });

  it('connector state: keys by prefix, in key order, per connector, taken as text (no LIKE patterns)', async () => {
    const { store } = await openTestStore(backend);
    await store.write(async (tx) => {
      for (const key of ['sent:b', 'sent:a', 'sent:c', 'sentinel', 'cursor', 'sen%:x', 'sen_:y']) await tx.state.set('mail', key, 1, 1);
      await tx.state.set('desk', 'sent:z', 1, 1);
    });
    expect(await store.read.state.keys('mail', 'sent:', 100)).toEqual(['sent:a', 'sent:b', 'sent:c']);
    expect(await store.read.state.keys('mail', 'sent:', 2)).toEqual(['sent:a', 'sent:b']);
    expect(await store.read.state.keys('mail', 'sen%', 100)).toEqual(['sen%:x']);
    expect(await store.read.state.keys('mail', 'nothing', 100)).toEqual([]);
  });

  it('the same message submitted ten times at once is stored once; the rest are duplicates', async () => {
    const { store } = await openTestStore(backend);
    const queue = new JobQueue(store);
    const bridge = new InboundBridge({ store, queue, budget: { maxAttempts: 3, retryForMs: 60_000 } });
    const message = { threadKey: 'T', messageId: 'm-1', senderId: 'c@example.test', body: 'hello' };
    const results = await Promise.all(Array.from({ length: 10 }, () => bridge.submit('mail', message)));
    expect(results.filter((r) => !r.duplicate)).toHaveLength(1);
    expect(new Set(results.map((r) => r.threadId)).size).toBe(1);
    expect((await store.read.sql.get<{ n: number }>('select count(*) as n from inbound_messages'))!.n).toBe(1);
    expect((await store.read.sql.get<{ n: number }>('select count(*) as n from jobs'))!.n).toBe(1);
  });

  it('jobs: concurrent claims take different jobs; an expired lease passes to a new owner and fences the old one', async () => {
    const { store } = await openTestStore(backend);
    const queue = new JobQueue(store);
    await store.write(async (tx) => {
      for (let n = 0; n < 20; n++) await queue.enqueue(tx, { kind: 'k', payload: { connector: n % 2 ? 'mail' : 'desk', n } });
    });
    const claims = await Promise.all(['r1', 'r2', 'r3', 'r4'].map((owner) => queue.claim('k', owner, 60_000, 8)));
    const ids = claims.flat().map((j) => j.id);
    expect(ids).toHaveLength(20);
    expect(new Set(ids).size).toBe(20);

    const [first] = claims.flat();
    await store.write((tx) => tx.sql.run('update jobs set lease_until = ? where id = ?', [Date.now() - 1, first!.id]));
    const taken = await queue.claim('k', 'r9', 60_000, 5);
    expect(taken.map((j) => j.id)).toEqual([first!.id]);
    expect(taken[0]!.attempts).toBe(2);
    await expect(queue.completeWith(first!.id, 'r1')).rejects.toMatchObject({ code: 'TG_JOB_LEASE_LOST' });
    await expect(queue.completeWith(first!.id, 'r9')).resolves.toBe(true);
    expect((await listJobs(store.read.sql, { connector: 'mail', limit: 100 })).length).toBe(10);
    expect(await queue.countByStatus()).toMatchObject({ running: 19, done: 1 });
  });

  // SQLite has one gateway, whose per-thread locks keep the order; its claims do not check order keys.
  it.runIf(backend === 'postgres')('jobs of one order key are claimed one at a time, in order, by any replica; a failed one waiting on its backoff lets the next go', async () => {
    const { store } = await openTestStore(backend);
    const queue = new JobQueue(store, { backoff: { baseMs: 60_000, maxMs: 60_000 } });
    const ids = await store.write(async (tx) => ({
      a1: await queue.enqueue(tx, { kind: 'k', payload: 'a1', orderKey: 'thread:A' }),
      a2: await queue.enqueue(tx, { kind: 'k', payload: 'a2', orderKey: 'thread:A' }),
      a3: await queue.enqueue(tx, { kind: 'k', payload: 'a3', orderKey: 'thread:A' }),
      b1: await queue.enqueue(tx, { kind: 'k', payload: 'b1', orderKey: 'thread:B' }),
      n1: await queue.enqueue(tx, { kind: 'k', payload: 'n1' }),
    }));
    // Two replicas claim at once: each key's first job only, between them.
    const [r1, r2] = await Promise.all([queue.claim('k', 'r1', 60_000, 10), queue.claim('k', 'r2', 60_000, 10)]);
    expect([...r1, ...r2].map((j) => j.payload).sort()).toEqual(['a1', 'b1', 'n1']);
    const owner = (payload: string) => (r1.some((j) => j.payload === payload) ? 'r1' : 'r2');
    expect(await queue.claim('k', 'r3', 60_000, 10)).toEqual([]);

    await queue.completeWith(ids.a1, owner('a1'));
    const next = await queue.claim('k', 'r3', 60_000, 10);
    expect(next.map((j) => j.payload)).toEqual(['a2']);
    await queue.write((tx) => queue.fail(tx, next[0]!, 'r3', new Error('the receiver is down')));
    expect((await queue.claim('k', 'r3', 60_000, 10)).map((j) => j.payload)).toEqual(['a3']);
  });

  it('skipped records and registrations: a second record of one message is a duplicate; a rotated secret keeps the previous one', async () => {
    const { store } = await openTestStore(backend);
    const skip = { connector: 'mail', externalId: '<x>', senderId: null, summary: null, code: 'TG_EMAIL_OWN', reason: 'ours' };
    expect(await store.write((tx) => tx.skipped.record(skip, 1))).toBe(true);
    expect(await store.write((tx) => tx.skipped.record(skip, 2))).toBe(false);
    await store.write((tx) => tx.registrations.save({ connector: 'mail', configId: 'c1', name: 'Mail', roomId: 'r', replyWebhookUrl: 'http://x/y', secret: 's1' }, 1));
    await store.write((tx) => tx.registrations.rotate('mail', 's2', 1_000, 2));
    expect(await store.read.registrations.get('mail')).toMatchObject({ secret: 's2', previousSecret: 's1', previousSecretExpiresAt: 1_000 });
  });

  // Guards against bytes changed on their way through a driver: a NUL cut off or rewritten (as text with U+0000 is on
  // PostgreSQL), a Uint8Array answered where a Buffer was stored, or the bytes decoded as UTF-8.
  it('files: binary content with 0x00 comes back identical, with and without its bytes; expired ones are pruned in batches', async () => {
    const { store, reopen } = await openTestStore(backend);
    const content = Buffer.from([0x00, 0xff, 0x00, 0x0a, 0x25, 0x50, 0x44, 0x46, 0xc3, 0x28, 0x00, ...Array.from({ length: 256 }, (_, i) => i)]);
    const row = (id: string, expiresAt: number) => ({
      id, connector: 'mail', filename: 'scan €.pdf', contentType: 'application/pdf', size: content.length, sha256: 'ab'.repeat(32),
      content, createdAt: 1_000, expiresAt,
    });
    await store.write(async (tx) => {
      await tx.files.insert(row('file-a'.padEnd(22, 'a'), 5_000));
      await tx.files.insert(row('file-b'.padEnd(22, 'b'), 6_000));
      await tx.files.insert(row('file-c'.padEnd(22, 'c'), 9_000));
    });
    const got = (await (await reopen()).read.files.get('file-a'.padEnd(22, 'a')))!;
    expect(Buffer.isBuffer(got.content)).toBe(true);
    expect(got.content.equals(content)).toBe(true);
    expect(got).toMatchObject({ filename: 'scan €.pdf', contentType: 'application/pdf', size: content.length, createdAt: 1_000, expiresAt: 5_000 });
    const { content: _bytes, ...described } = row('file-b'.padEnd(22, 'b'), 6_000);
    expect(await store.read.files.meta(described.id)).toEqual(described);
    expect(await store.read.files.get('nope'.padEnd(22, 'x'))).toBeUndefined();
    // Expired at 6 000: two of them, one per batch of one; the third stays.
    expect(await store.write((tx) => tx.files.pruneExpired(6_000, 1))).toBe(1);
    expect(await store.write((tx) => tx.files.pruneExpired(6_000, 1))).toBe(1);
    expect(await store.write((tx) => tx.files.pruneExpired(6_000, 1))).toBe(0);
    expect((await store.read.sql.all<{ id: string }>('select id from files')).map((r) => r.id)).toEqual(['file-c'.padEnd(22, 'c')]);
  });

  it('refuses writes after close, having committed the ones asked for before it', async () => {
    const { store, reopen } = await openTestStore(backend);
    const before = store.write((tx) => tx.deliveries.insert(delivery(1), Date.now()));
    const closing = store.close();
    await expect(store.write((tx) => tx.deliveries.insert(delivery(2), Date.now()))).rejects.toMatchObject({ code: 'TG_STORE_CLOSED' });
    await closing;
    expect(await before).toBe(1);
    expect(await (await reopen()).read.deliveries.countByStatus('desk')).toEqual({ accepted: 1 });
  });
});
