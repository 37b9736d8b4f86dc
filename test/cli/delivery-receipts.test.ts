/**
 * Where an operator reads a delivery, it shows the receipt its connector
 * recorded for what it sent (matched by the delivery's external id): the
 * furthest status, its time and a failure's reason — in `threadgate
 * deliveries show` (table and JSON) and in the admin API's delivery detail,
 * which keeps to its published schema. A delivery without one says so.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startAdminGateway } from '../support/admin-gateway.ts';
import { runCliAsync } from '../support/cli.ts';
import { conforms } from '../http/admin-api-support.ts';

/** The recorder delivers every message with this external id (test/fixtures/connectors/recorder.ts). */
const EXTERNAL_ID = 'ext-message_created';

describe('a delivery’s receipt, where an operator reads the delivery', () => {
  it('deliveries show and the admin API show the furthest status recorded; a late one changes nothing', async () => {
    const tg = await startAdminGateway();
    const receipt = async (status: string, at: string, reason?: string) =>
      (await tg.call('POST', '/connectors/desk/receipts', { externalId: EXTERNAL_ID, status, at, ...(reason ? { reason } : {}) })).body;
    expect(await receipt('delivered', '2026-11-27T08:00:01Z')).toEqual({ changed: true });
    expect(await receipt('read', '2026-11-27T08:00:05Z')).toEqual({ changed: true });
    expect(await receipt('delivered', '2026-11-27T08:00:01Z')).toEqual({ changed: false });

    const delivered = (await tg.admin('GET', '/deliveries?status=delivered')).body.results[0].id as number;
    const dead = (await tg.admin('GET', '/deliveries?status=dead')).body.results[0].id as number;
    const shown = await tg.admin('GET', `/deliveries/${delivered}`);
    conforms('getDelivery', shown);
    expect(shown.body).toMatchObject({ external_id: EXTERNAL_ID, receipt: { status: 'read', at: '2026-11-27T08:00:05.000Z', reason: null } });
    const none = await tg.admin('GET', `/deliveries/${dead}`);
    conforms('getDelivery', none);
    expect(none.body.receipt).toBeNull();

    const cli = (...args: string[]) => runCliAsync([...args, '--config', join(tg.dir, 'threadgate.yaml')]);
    const json = JSON.parse((await cli('deliveries', 'show', String(delivered), '--json')).stdout) as { receipt: unknown };
    expect(json.receipt).toMatchObject({ status: 'read', at: '2026-11-27T08:00:05.000Z', reason: null });
    const text = (await cli('deliveries', 'show', String(delivered))).stdout;
    expect(text).toMatch(/^receipt +read at 2026-11-27T08:00:05\.000Z$/m);
    expect((await cli('deliveries', 'show', String(dead))).stdout).toMatch(/^receipt +-$/m);
  });

  it('a failure is final and shows its reason', async () => {
    const tg = await startAdminGateway();
    await tg.call('POST', '/connectors/desk/receipts', { externalId: EXTERNAL_ID, status: 'failed', at: '2026-11-27T08:00:01Z', reason: '131026 Message undeliverable' });
    expect((await tg.call('POST', '/connectors/desk/receipts', { externalId: EXTERNAL_ID, status: 'read', at: '2026-11-27T08:00:09Z' })).body).toEqual({ changed: false });
    const delivered = (await tg.admin('GET', '/deliveries?status=delivered')).body.results[0].id as number;
    expect((await tg.admin('GET', `/deliveries/${delivered}`)).body.receipt).toMatchObject({ status: 'failed', reason: '131026 Message undeliverable' });
    const text = (await runCliAsync(['deliveries', 'show', String(delivered), '--config', join(tg.dir, 'threadgate.yaml')])).stdout;
    expect(text).toMatch(/^receipt +failed at 2026-11-27T08:00:01\.000Z: 131026 Message undeliverable$/m);
  });
});
