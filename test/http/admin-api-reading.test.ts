/**
 * The admin API over real HTTP on a gateway with a populated delivery log,
 * reading it: deliveries and inbound messages filter and page like the CLI,
 * connectors and counts are reported, and every answer matches its schema.
 */
import { describe, expect, it } from 'vitest';
import { startAdminGateway } from '../support/admin-gateway.ts';
import { conforms, refused } from './admin-api-support.ts';

describe('admin API: reading the log', () => {
  it('lists deliveries newest first with the CLI filters and pages with next_before', async () => {
    const tg = await startAdminGateway();
    const all = await tg.admin('GET', '/deliveries');
    expect(all.status).toBe(200);
    conforms('listDeliveries', all);
    expect(all.body.results.map((d: { status: string }) => d.status)).toEqual(['rejected', 'dead', 'delivered']);
    expect(all.body.next_before).toBeNull();
    const ids = all.body.results.map((d: { id: number }) => d.id) as number[];

    const statuses = async (query: string) => (await tg.admin('GET', `/deliveries?${query}`)).body.results.map((d: { connector: string; status: string }) => `${d.connector}:${d.status}`);
    expect(await statuses('status=dead')).toEqual(['refuser:dead']);
    expect(await statuses('connector=desk&status=delivered,rejected')).toEqual(['desk:rejected', 'desk:delivered']);
    expect(await statuses('status=delivered&status=dead')).toEqual(['refuser:dead', 'desk:delivered']);
    expect(await statuses('since=1h&event=message_created')).toHaveLength(2);
    expect(await statuses(`since=${encodeURIComponent(new Date(Date.now() - 60_000).toISOString())}`)).toHaveLength(3);
    expect(await statuses('until=2000-01-01T00:00:00Z')).toEqual([]);
    expect(await statuses('thread=refuser:T1')).toEqual(['refuser:dead']);

    // The cursor: one per page, each page's next_before leading to the next, null on the last.
    const seen: number[] = [];
    let before: number | null | undefined;
    for (let pages = 0; before !== null; pages += 1) {
      expect(pages).toBeLessThan(4);
      const page = await tg.admin('GET', `/deliveries?limit=1${before ? `&before=${before}` : ''}`);
      seen.push(...page.body.results.map((d: { id: number }) => d.id));
      before = page.body.next_before;
      if (before !== null) expect(before).toBe(seen[seen.length - 1]);
    }
    expect(seen).toEqual(ids);
    // A full last page says there is no more (the next page is not known to be empty only afterwards).
    expect((await tg.admin('GET', '/deliveries?limit=3')).body.next_before).toBeNull();
    expect((await tg.admin('GET', '/deliveries?limit=2')).body.next_before).toBe(ids[1]);
  });

  it('shows one delivery with headers, the body parsed and its attempts', async () => {
    const tg = await startAdminGateway();
    const id = (await tg.admin('GET', '/deliveries?status=dead')).body.results[0].id as number;
    const shown = await tg.admin('GET', `/deliveries/${id}`);
    expect(shown.status).toBe(200);
    conforms('getDelivery', shown);
    expect(shown.body).toMatchObject({ id, connector: 'refuser', status: 'dead', verification: 'valid', event_type: 'message_created', body_truncated: false });
    expect(shown.body.headers['x-svc-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(shown.body.body.message.message).toBe('reply via refuser');
    // What names the event: its id at the time the platform says it was created.
    expect(shown.body).toMatchObject({ dedup_key: `message_created:${shown.body.body.message.id}`, event_at: shown.body.body.message.created_at });
    expect(shown.body.attempts).toEqual([expect.objectContaining({ attempt: 1, outcome: 'dead', replay: false, error: expect.stringContaining('TG_DELIVERY_PERMANENT') })]);
    refused(await tg.admin('GET', '/deliveries/999999'), 404, 'TG_RECORD_NOT_FOUND');
  });

  it('lists and shows inbound messages, reports connectors and counts', async () => {
    const tg = await startAdminGateway();
    const inbound = await tg.admin('GET', '/inbound?status=posted');
    conforms('listInbound', inbound);
    expect(inbound.body.results.map((m: { connector: string; external_id: string }) => `${m.connector}:${m.external_id}`)).toEqual(['refuser:refuser-1', 'desk:desk-1']);
    expect((await tg.admin('GET', '/inbound?status=dead')).body.results).toEqual([]);
    expect((await tg.admin('GET', '/inbound?connector=desk&limit=1')).body).toMatchObject({ results: [expect.objectContaining({ connector: 'desk' })], next_before: null });
    const id = inbound.body.results[1].id as number;
    const shown = await tg.admin('GET', `/inbound/${id}`);
    conforms('getInbound', shown);
    expect(shown.body).toMatchObject({ id, connector: 'desk', thread_key: 'T1', thread_id: 'desk:T1', body: 'hi from desk', status: 'posted' });
    expect(shown.body.attempts).toEqual([expect.objectContaining({ outcome: 'posted', status: expect.any(Number) })]);
    refused(await tg.admin('GET', '/inbound/424242'), 404, 'TG_RECORD_NOT_FOUND');

    const connectors = await tg.admin('GET', '/connectors');
    conforms('listConnectors', connectors);
    expect(connectors.body.results).toEqual([
      { name: 'desk', ok: true, details: { delivered: expect.any(Number) }, deliveries: null, registered: true, paused: null, up: true },
      // Its one delivery was refused: a run of one failure, not yet enough to count as down (health.delivery_failures).
      {
        name: 'refuser',
        ok: true,
        details: { delivered: expect.any(Number) },
        deliveries: { since: expect.any(String), attempts: 1, last_error: 'TG_DELIVERY_PERMANENT: the recorder refuses everything', last_error_at: expect.any(String), down: false },
        registered: true,
        paused: null,
        up: true,
      },
    ]);
    const health = await tg.admin('GET', '/health');
    conforms('getHealth', health);
    expect(health.body).toMatchObject({ ready: true, healthy: true, problems: [], platform: { up: true, auth: 'ok' } });
    const counts = await tg.admin('GET', '/counts');
    conforms('getCounts', counts);
    expect(counts.body.deliveries).toEqual({ accepted: 0, duplicate: 0, rejected: 1, delivered: 1, skipped: 0, failed: 0, dead: 1 });
    expect(counts.body.inbound).toEqual({ pending: 0, posted: 2, dead: 0 });
    expect(counts.body.jobs).toMatchObject({ dead: 1, queued: 0, running: 0 });
  });
});
