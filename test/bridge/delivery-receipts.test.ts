/**
 * `ctx.receipts.record` as a connector calls it in a gateway: checked by the
 * contract's rules (a bad receipt is refused naming its field, nothing
 * stored), stored per connector at the furthest status, its reason trimmed
 * and cut; and the author kit's recording context keeps receipts the same way.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createConnectorContext } from '../../src/bridge/connector-context.ts';
import { createFileLinks } from '../../src/bridge/file-links.ts';
import { FileService } from '../../src/bridge/files.ts';
import { InboundBridge } from '../../src/bridge/inbound.ts';
import { MAX_RECEIPT_REASON } from '../../src/connector/receipt-rules.ts';
import { recordingContext } from '../../src/connector/testing/index.ts';
import { JobQueue } from '../../src/jobs/queue.ts';
import { createLogger } from '../../src/log/logger.ts';
import { openStore } from '../../src/store/database.ts';
import { tempDir } from '../support/temp-dir.ts';

function contextOf(name: string) {
  const store = openStore({ path: join(tempDir(), 'receipts.db') });
  onTestFinished(() => store.close());
  const inbound = new InboundBridge({ store, queue: new JobQueue(store), budget: { maxAttempts: 3, retryForMs: 60_000 } });
  const files = new FileService({ store, links: createFileLinks(randomBytes(32)), publicUrl: () => 'http://gw.example.test', ttlMs: 60_000 });
  const attachments = { fetch: () => Promise.reject(new Error('no attachments in these tests')) };
  return { store, ctx: createConnectorContext(name, { store, inbound, logger: createLogger('silent'), files, attachments }, { add: () => {} }) };
}

const at = new Date('2026-11-27T08:00:00Z');

describe('ctx.receipts in the gateway', () => {
  it('stores the furthest status per message of the connector; a late one answers changed: false', async () => {
    const { store, ctx } = contextOf('wa');
    expect(await ctx.receipts.record({ externalId: 'wamid.A', status: 'delivered', at })).toEqual({ changed: true });
    expect(await ctx.receipts.record({ externalId: 'wamid.A', status: 'read', at: new Date(at.getTime() + 5_000) })).toEqual({ changed: true });
    expect(await ctx.receipts.record({ externalId: 'wamid.A', status: 'delivered', at })).toEqual({ changed: false });
    expect(await store.read.receipts.of('wa', 'wamid.A')).toMatchObject({ status: 'read', at: at.getTime() + 5_000, reason: null });
  });

  it('refuses a receipt that breaks a rule with TG_RECEIPT_INVALID naming the field, storing nothing', async () => {
    const { store, ctx } = contextOf('wa');
    const refused = async (receipt: unknown, field: string) => {
      await expect(ctx.receipts.record(receipt as never)).rejects.toMatchObject({ code: 'TG_RECEIPT_INVALID', field });
    };
    await refused({ externalId: ' ', status: 'read', at }, 'externalId');
    await refused({ externalId: 'x'.repeat(2_001), status: 'read', at }, 'externalId');
    await refused({ externalId: 'wamid.B', status: 'seen', at }, 'status');
    await refused({ externalId: 'wamid.B', status: 'read', at: new Date('not a time') }, 'at');
    await refused({ externalId: 'wamid.B', status: 'read', at: at.getTime() }, 'at');
    await refused({ externalId: 'wamid.B', status: 'failed', at, reason: 131047 }, 'reason');
    expect(await store.read.sql.all('select * from delivery_receipts')).toEqual([]);
  });

  it('keeps a failure’s reason trimmed and cut to its limit', async () => {
    const { store, ctx } = contextOf('wa');
    await ctx.receipts.record({ externalId: 'wamid.C', status: 'failed', at, reason: `  131026 Message undeliverable ${'x'.repeat(3_000)}` });
    const kept = await store.read.receipts.of('wa', 'wamid.C');
    expect(kept?.reason?.startsWith('131026 Message undeliverable')).toBe(true);
    expect(kept?.reason).toHaveLength(MAX_RECEIPT_REASON);
  });
});

describe('ctx.receipts in the recording context', () => {
  it('records every call and keeps the furthest status per message, as the gateway does', async () => {
    const ctx = recordingContext({ name: 'wa' });
    await ctx.receipts.record({ externalId: 'wamid.D', status: 'read', at });
    expect(await ctx.receipts.record({ externalId: 'wamid.D', status: 'delivered', at })).toEqual({ changed: false });
    expect(ctx.recordedReceipts.map((r) => r.status)).toEqual(['read', 'delivered']);
    expect(ctx.receiptOf('wamid.D')?.status).toBe('read');
    await expect(ctx.receipts.record({ externalId: '', status: 'read', at })).rejects.toMatchObject({ code: 'TG_RECEIPT_INVALID', field: 'externalId' });
  });
});
