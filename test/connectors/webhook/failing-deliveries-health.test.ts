/**
 * A webhook connector whose deliveries keep failing is down, though its own
 * report says ok: after `health.delivery_failures` attempts in a row failed,
 * `/readyz?strict=1` answers 503 naming the connector, the last error and
 * since when; the admin API shows it; `threadgate_connector_up` is 0. The
 * next delivery that gets through makes it up again. A real gateway, the
 * sandbox as the platform, a real receiver (or a closed port).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { parse, stringify } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { gauge } from '../../support/metrics.ts';
import { closedPort } from '../../support/ports.ts';
import { startTestGateway, type TestGateway } from '../../support/gateway.ts';
import { until } from '../../support/wait.ts';
import { INBOUND_SECRET, OUTBOUND_SECRET } from './fixtures.ts';
import { startReceiver, type Receiver } from './receiver.ts';

const ADMIN_TOKEN = 'admin-token-0123456789';
/** Retries a few milliseconds apart, so a run of failures takes well under a second. */
const FAST_RETRIES = { jobs: { backoff_first: '10ms', backoff_max: '40ms' } };

let receiver: Receiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

async function gatewayWithOutbound(outboundUrl: string, settings: Record<string, unknown> = {}): Promise<TestGateway> {
  return startTestGateway({
    connectors: [{ name: 'helpdesk', type: 'webhook', inbound_secret: INBOUND_SECRET, outbound_url: outboundUrl, outbound_secret: OUTBOUND_SECRET, timeout_ms: 500 }],
    settings: { ...FAST_RETRIES, server: { admin_token: ADMIN_TOKEN }, ...settings },
  });
}

/** A customer message in (signed), and the chat it made. */
async function chatOf(tg: TestGateway): Promise<string> {
  const raw = JSON.stringify({ thread_id: 'case-9', messages: [{ message_id: 'in-1', sender_id: 'ann@example.com', sender_name: 'Ann', body: 'Hello?' }] });
  const id = 'msg_health';
  const at = new Date();
  const headers = { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': new Webhook(INBOUND_SECRET).sign(id, at, raw) };
  expect((await tg.call('POST', '/connectors/helpdesk/messages', raw, headers)).status).toBe(202);
  const thread = async () => tg.gateway.store.read.threads.byKey('helpdesk', 'case-9');
  await until(async () => (await thread())?.chatId != null, 5_000, 'the chat');
  return (await thread())!.chatId!;
}

const readyz = (tg: TestGateway) => tg.call('GET', '/readyz?strict=1');
const attemptsOf = async (tg: TestGateway) => (await tg.call('GET', '/readyz?strict=1')).body.connectors.helpdesk.deliveries?.attempts ?? 0;

describe('a connector whose deliveries keep failing', () => {
  it('is down after three failed attempts to a dead port: strict readiness 503, the admin API and the gauge agree', async () => {
    const tg = await gatewayWithOutbound(`http://127.0.0.1:${await closedPort()}/hooks`);
    const chatId = await chatOf(tg);
    await until(async () => (await readyz(tg)).status === 200, 10_000, 'strictly healthy before any delivery');
    expect(await gauge(tg, 'threadgate_connector_up{connector="helpdesk"}')).toBe(1);

    await tg.sandbox.call('POST', `/_sandbox/chats/${chatId}/agent_messages`, { text: 'We are on it' });
    await until(async () => (await attemptsOf(tg)) >= 3, 10_000, 'three failed attempts');

    const strict = await readyz(tg);
    expect(strict.status).toBe(503);
    const helpdesk = strict.body.connectors.helpdesk;
    expect(helpdesk).toMatchObject({ ok: false, up: false, registered: true, paused: null });
    expect(helpdesk.deliveries).toMatchObject({ down: true, since: expect.any(String), last_error_at: expect.any(String) });
    expect(helpdesk.deliveries.last_error).toMatch(/ECONNREFUSED/);
    expect(Date.parse(helpdesk.deliveries.since)).toBeLessThanOrEqual(Date.parse(helpdesk.deliveries.last_error_at));
    expect(strict.body.problems.join('\n')).toMatch(/^connector helpdesk: \d+ deliveries in a row failed since \S+ \(last: .*ECONNREFUSED/m);
    // Traffic may still be sent here: plain readiness is about this gateway, not the connector's far end.
    expect((await tg.call('GET', '/readyz')).status).toBe(200);
    expect(await gauge(tg, 'threadgate_connector_up{connector="helpdesk"}')).toBe(0);

    const admin = await tg.call('GET', '/admin/api/connectors', undefined, { authorization: `Bearer ${ADMIN_TOKEN}` });
    expect(admin.status).toBe(200);
    expect(admin.body.results).toEqual([expect.objectContaining({ name: 'helpdesk', ok: false, up: false, deliveries: expect.objectContaining({ down: true }) })]);
  });

  it('is down after three answers of 503, and up again after the next delivery that gets through', async () => {
    let failing = true;
    receiver = await startReceiver(OUTBOUND_SECRET, () => ({ status: failing ? 503 : 200 }));
    const tg = await gatewayWithOutbound(receiver.url);
    const chatId = await chatOf(tg);
    await until(async () => (await readyz(tg)).status === 200, 10_000, 'strictly healthy before any delivery');

    await tg.sandbox.call('POST', `/_sandbox/chats/${chatId}/agent_messages`, { text: 'One moment' });
    await until(async () => receiver!.requests.length >= 3, 10_000, 'three answers of 503');
    await until(async () => (await readyz(tg)).status === 503, 5_000, 'down');
    expect((await readyz(tg)).body.connectors.helpdesk.deliveries.last_error).toMatch(/503/);

    failing = false;
    await until(async () => (await readyz(tg)).status === 200, 10_000, 'up again after a delivery got through');
    const after = (await readyz(tg)).body.connectors.helpdesk;
    expect(after).toMatchObject({ ok: true, up: true, deliveries: null });
    expect(await gauge(tg, 'threadgate_connector_up{connector="helpdesk"}')).toBe(1);
  });

  it('counts by time when set so: down after one failure once none succeeded for the span', { timeout: 30_000 }, async () => {
    const tg = await gatewayWithOutbound(`http://127.0.0.1:${await closedPort()}/hooks`, {
      health: { delivery_failures: 0, delivery_failing_for: '3s' },
      jobs: { backoff_first: '30s', backoff_max: '1m' },
    });
    const chatId = await chatOf(tg);
    await tg.sandbox.call('POST', `/_sandbox/chats/${chatId}/agent_messages`, { text: 'Soon' });
    await until(async () => (await attemptsOf(tg)) === 1, 10_000, 'the first failed attempt');
    const first = (await readyz(tg)).body.connectors.helpdesk.deliveries;
    expect(first.down).toBe(false);
    await until(async () => (await readyz(tg)).status === 503, 10_000, 'down once 3 s passed');
    expect((await readyz(tg)).body.connectors.helpdesk.deliveries).toMatchObject({ attempts: 1, down: true });
    expect((await readyz(tg)).body.problems).toContain(`connector helpdesk: a delivery failed since ${first.since} (last: ${first.last_error})`);
  });

  it('takes a changed health section from a reload at once', async () => {
    const tg = await gatewayWithOutbound(`http://127.0.0.1:${await closedPort()}/hooks`, { health: { delivery_failures: 1000 } });
    const chatId = await chatOf(tg);
    await tg.sandbox.call('POST', `/_sandbox/chats/${chatId}/agent_messages`, { text: 'Soon' });
    await until(async () => (await attemptsOf(tg)) >= 3, 10_000, 'three failed attempts');
    expect((await readyz(tg)).body.connectors.helpdesk.deliveries.down).toBe(false);

    const file = join(tg.dir, 'threadgate.yaml');
    const settings = parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    writeFileSync(file, stringify({ ...settings, health: { delivery_failures: 3 } }));
    expect(tg.gateway.reload()).toEqual({ applied: ['health.delivery_failures'], restartNeeded: [] });
    expect((await readyz(tg)).status).toBe(503);
    expect((await readyz(tg)).body.connectors.helpdesk.deliveries.down).toBe(true);
  });
});
