/**
 * What a refused webhook costs the store: only a prefix of its body, within a
 * total byte budget, kept for hours rather than the delivery log's days;
 * requests to unknown connector names are counted and never stored.
 */
import { describe, expect, it } from 'vitest';
import { signedHeaders } from '../../src/platform/signature.ts';
import { messageCreatedEnvelope } from '../support/events.ts';
import { gauge } from '../support/metrics.ts';
import { until } from '../support/wait.ts';
import { openStoppedStore, RECORDER_MODULE, startTestGateway, type TestGateway } from '../support/gateway.ts';

const desk = { name: 'desk', type: 'recorder', module: RECORDER_MODULE };
const FORGED = 'f'.repeat(64);
const HOUR = 60 * 60 * 1000;

/** A message_created event padded to about `bytes`, signed with a secret that is not the connector's. */
function forged(bytes: number): { raw: string; headers: Record<string, string> } {
  const raw = JSON.stringify({ ...messageCreatedEnvelope({ threadId: 'desk:T' }), padding: 'p'.repeat(bytes) });
  return { raw, headers: signedHeaders(FORGED, raw) };
}

const refusedRows = async (tg: TestGateway) =>
  (await tg.gateway.store.read.sql.all(`select connector, body, body_truncated as cut, headers from deliveries where status = 'rejected' order by id`)) as {
    connector: string; body: string; cut: number; headers: string;
  }[];

const metric = gauge;

describe('refused webhooks in the store', () => {
  it('a large refused body is stored cut to store.refused.keep_body_bytes (default 4 KiB), the cut recorded, huge headers cut too', async () => {
    // Guards against: every refusal keeping 16 KiB of body plus every header, ~39 KiB a record.
    const tg = await startTestGateway({ connectors: [desk] });
    const { raw, headers } = forged(40_000);
    const res = await tg.call('POST', '/webhooks/desk', raw, { ...headers, 'x-junk': 'j'.repeat(6_000) });
    expect(res.status).toBe(401);
    const [row] = (await refusedRows(tg));
    expect(row).toMatchObject({ connector: 'desk', body: raw.slice(0, 4_096), cut: 1 });
    expect(Buffer.byteLength(row!.headers)).toBeLessThanOrEqual(2_048);
    expect(JSON.parse(row!.headers)).toMatchObject({ 'x-svc-signature': headers['x-svc-signature'] });

    const small = await startTestGateway({ connectors: [desk], settings: { store: { path: 'gateway.db', refused: { keep_body_bytes: 100 } } } });
    await small.call('POST', '/webhooks/desk', raw, headers);
    expect((await refusedRows(small))[0]).toMatchObject({ body: raw.slice(0, 100), cut: 1 });
  });

  // Guards against a refused request's credentials (Authorization, Cookie) landing in the delivery log, also on the
  // body-too-large path that records the raw request headers.
  it('never stores the credential headers of a refused request, whether its signature failed or its body was too large', async () => {
    const tg = await startTestGateway({ connectors: [desk], settings: { server: { body_limit_bytes: 4_096 } } });
    const credentials = { authorization: 'Bearer caller-credential-1', cookie: 'session=caller-credential-2' };
    const small = forged(100);
    expect((await tg.call('POST', '/webhooks/desk', small.raw, { ...small.headers, ...credentials })).status).toBe(401);
    const large = forged(10_000);
    expect((await tg.call('POST', '/webhooks/desk', large.raw, { ...large.headers, ...credentials })).status).toBe(413);
    const rows = (await refusedRows(tg));
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(JSON.parse(row.headers)).toMatchObject({ 'x-svc-signature': expect.any(String) });
      expect(row.headers).not.toMatch(/caller-credential|authorization|cookie/i);
    }
  });

  it('requests to unknown connector names are answered 404, logged and counted in /metrics, and never stored', async () => {
    // Guards against: a flood to made-up names filling the store under a shared "(unknown)" budget.
    const lines: string[] = [];
    const tg = await startTestGateway({ connectors: [desk], logLines: lines });
    const { raw, headers } = forged(10_000);
    for (const name of ['nobody', 'ghost', 'nobody']) expect((await tg.call('POST', `/webhooks/${name}`, raw, headers)).status).toBe(404);
    const tooBig = await startTestGateway({ connectors: [desk], settings: { server: { body_limit_bytes: 2_048 } } });
    expect((await tooBig.call('POST', '/webhooks/nobody', raw, headers)).status).toBe(413);

    expect((await refusedRows(tg))).toEqual([]);
    expect((await refusedRows(tooBig))).toEqual([]);
    expect(await metric(tg, 'threadgate_webhooks_received_total{connector="(unknown)",result="rejected"}')).toBe(3);
    expect(await metric(tg, 'threadgate_webhook_refusals_not_stored_total{connector="(unknown)",reason="unknown_connector"}')).toBe(3);
    expect(await metric(tooBig, 'threadgate_webhook_refusals_not_stored_total{connector="(unknown)",reason="unknown_connector"}')).toBe(1);
    const refusals = lines.map((l) => JSON.parse(l) as { msg: string; code?: string; stored?: boolean }).filter((l) => l.msg.startsWith('webhook refused'));
    expect(refusals).toHaveLength(3);
    expect(refusals.every((l) => l.code === 'TG_CONNECTOR_UNKNOWN' && l.stored === false)).toBe(true);
  });

  it('past store.refused.max_total_bytes refusals are answered and counted, not stored, with one warning a minute', async () => {
    // Guards against: refusals within the per-minute rate adding up to gigabytes over the retention period.
    const lines: string[] = [];
    const settings = { store: { path: 'gateway.db', refused: { max_total_bytes: 10_000 } } };
    const tg = await startTestGateway({ connectors: [desk], settings, logLines: lines });
    const { raw, headers } = forged(20_000);
    for (let i = 0; i < 6; i++) expect((await tg.call('POST', '/webhooks/desk', raw, headers)).status).toBe(401);

    const stored = (await refusedRows(tg));
    expect(stored).toHaveLength(2); // 4 KiB of body and the headers each: the third would pass 10,000 bytes
    const held = (await tg.gateway.store.read.sql.get(`select sum(length(body) + length(headers) + length(error)) as n from deliveries`)) as { n: number };
    expect(held.n).toBeLessThanOrEqual(10_000);
    expect(await metric(tg, 'threadgate_webhooks_received_total{connector="desk",result="rejected"}')).toBe(6);
    expect(await metric(tg, 'threadgate_webhook_refusals_not_stored_total{connector="desk",reason="budget"}')).toBe(4);
    const warnings = lines.filter((l) => l.includes('store.refused.max_total_bytes reached'));
    expect(warnings).toHaveLength(1);
    expect(JSON.parse(warnings[0]!)).toMatchObject({ level: 40, max_total_bytes: 10_000 });
  });

  it('retention prunes refused records after store.refused.retention_hours (default 24) while accepted deliveries of the same age stay', async () => {
    // Guards against: refused records being kept for the delivery log's 30 days.
    const tg = await startTestGateway({ connectors: [desk] });
    const secret = (await tg.gateway.store.read.registrations.get('desk'))!.secret;
    const good = JSON.stringify(messageCreatedEnvelope({ threadId: 'desk:T-kept' }));
    expect((await tg.call('POST', '/webhooks/desk', good, signedHeaders(secret, good))).status).toBe(200);
    await until(async () => (await tg.gateway.store.read.deliveries.countByStatus('desk')).delivered === 1, 5_000, 'the delivery');
    for (let i = 0; i < 2; i++) {
      const { raw, headers } = forged(100);
      expect((await tg.call('POST', '/webhooks/desk', raw, headers)).status).toBe(401);
    }
    await tg.gateway.close();

    // Two days pass for all of it, except for one refusal that came in an hour ago.
    const stopped = await openStoppedStore(tg);
    await stopped.write(async (tx) => {
      await tx.sql.run(`update deliveries set received_at = received_at - ?`, [48 * HOUR]);
      await tx.sql.run(`update deliveries set received_at = ? where id = (select max(id) from deliveries where status = 'rejected')`, [Date.now() - HOUR]);
    });
    await stopped.close();

    const again = await startTestGateway({ connectors: [desk], sandbox: tg.sandbox, dir: tg.dir });
    // Retention runs at start, beside serving: wait for its first round.
    const left = async () => (await again.gateway.store.read.sql.all<{ status: string }>(`select status from deliveries order by id`)).map((r) => r.status);
    await until(async () => (await left()).length < 3, 5_000, 'the first retention round');
    expect(await left()).toEqual(['delivered', 'rejected']);
  });
});
