/**
 * Delivery receipts in the store, on both backends: one row per message of a
 * connector at the furthest status reported (sent < delivered < read; failed
 * final), so a report that comes again or out of order changes nothing, also
 * when several arrive at once (replicas answering Meta's webhooks together).
 */
import { describe, expect, it } from 'vitest';
import type { ReceiptInput } from '../../src/store/receipts-repo.ts';
import type { Store } from '../../src/store/store.ts';
import { openTestStore, STORE_BACKENDS } from '../support/store-backends.ts';

const T0 = Date.parse('2026-11-27T08:00:00Z');
const receipt = (externalId: string, status: ReceiptInput['status'], at: number, reason: string | null = null): ReceiptInput => ({ connector: 'wa', externalId, status, at, reason });
const record = (store: Store, r: ReceiptInput, now = T0 + 60_000) => store.write((tx) => tx.receipts.record(r, now));

describe.each(STORE_BACKENDS)('delivery receipts on the %s store', (backend) => {
  it('keeps the furthest status: delivered, then read; an older or repeated one after that changes nothing', async () => {
    const { store } = await openTestStore(backend);
    expect(await record(store, receipt('wamid.1', 'sent', T0))).toBe(true);
    expect(await record(store, receipt('wamid.1', 'delivered', T0 + 1_000))).toBe(true);
    expect(await record(store, receipt('wamid.1', 'read', T0 + 2_000), T0 + 90_000)).toBe(true);
    expect(await record(store, receipt('wamid.1', 'delivered', T0 + 1_000))).toBe(false);
    expect(await record(store, receipt('wamid.1', 'sent', T0))).toBe(false);
    expect(await record(store, receipt('wamid.1', 'read', T0 + 5_000))).toBe(false);
    expect(await store.read.receipts.of('wa', 'wamid.1')).toEqual({ connector: 'wa', externalId: 'wamid.1', status: 'read', at: T0 + 2_000, reason: null, updatedAt: T0 + 90_000 });
    // Another connector's message of the same id is its own.
    expect(await store.read.receipts.of('other', 'wamid.1')).toBeUndefined();
    expect(await record(store, { ...receipt('wamid.1', 'sent', T0), connector: 'other' })).toBe(true);
  });

  it('failed is final: it replaces read, and nothing replaces it; its reason is kept', async () => {
    const { store } = await openTestStore(backend);
    await record(store, receipt('wamid.2', 'read', T0));
    expect(await record(store, receipt('wamid.2', 'failed', T0 + 1_000, '131026 Message undeliverable'))).toBe(true);
    expect(await record(store, receipt('wamid.2', 'read', T0 + 2_000))).toBe(false);
    expect(await record(store, receipt('wamid.2', 'failed', T0 + 3_000, 'again'))).toBe(false);
    expect(await store.read.receipts.of('wa', 'wamid.2')).toMatchObject({ status: 'failed', at: T0 + 1_000, reason: '131026 Message undeliverable' });
  });

  it('reports of one message arriving at once, in any order, end at the furthest', async () => {
    const { store } = await openTestStore(backend);
    const statuses = ['read', 'sent', 'delivered', 'read', 'sent'] as const;
    const results = await Promise.all(statuses.map((status, i) => record(store, receipt('wamid.3', status, T0 + i))));
    expect(results.filter(Boolean).length).toBeGreaterThanOrEqual(1);
    expect((await store.read.receipts.of('wa', 'wamid.3'))?.status).toBe('read');
  });
});
