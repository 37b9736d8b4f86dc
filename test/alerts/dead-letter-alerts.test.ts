/**
 * Alerts end to end: a real gateway with a webhook connector whose partner
 * refuses every delivery with 400 (a refusal for good: dead-lettered at
 * once), and an alert webhook on port 0 that checks each alert's Standard
 * Webhooks signature with the `standardwebhooks` library. One dead letter
 * brings one signed alert; a second within `every` only adds to the count;
 * when the partner takes deliveries again, "resolved" follows.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../src/connector/testing/test-gateway.ts';
import { until } from '../support/wait.ts';

const SECRET = `whsec_${Buffer.from('alerts-test-secret-of-32-bytes!!').toString('base64')}`;
let servers: Server[] = [];
let tg: TestGateway | undefined;
afterEach(async () => {
  await tg?.stop();
  tg = undefined;
  await Promise.all(servers.map((s) => new Promise((done) => s.close(done))));
  servers = [];
});

async function listen(answer: (body: string, headers: IncomingHttpHeaders) => number): Promise<string> {
  const server = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    res.writeHead(answer(body, req.headers)).end();
  });
  servers.push(server);
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('alerts', () => {
  it('a dead letter brings one signed alert; a second within `every` adds to the count; recovery sends "resolved"', { timeout: 60_000 }, async () => {
    const alerts: { body: any; verified: unknown }[] = [];
    const alertUrl = await listen((body, headers) => {
      let verified: unknown;
      try {
        verified = new Webhook(SECRET).verify(body, headers as Record<string, string>);
      } catch (err) {
        verified = err;
      }
      alerts.push({ body: JSON.parse(body), verified });
      return 204;
    });
    let partnerAnswers = 400;
    const partnerUrl = await listen(() => partnerAnswers);
    tg = await startTestGateway({
      connectors: [{ name: 'partner', type: 'webhook', allow_unsigned: true, outbound_url: `${partnerUrl}/hook`, outbound_secret: SECRET }],
      settings: { alerts: { webhook_url: `${alertUrl}/alerts`, webhook_secret: SECRET, check_every: '200ms', every: '15m' } },
    });
    const said = await tg.request('partner', 'POST', '/messages', { body: { thread_id: 't-1', messages: [{ message_id: 'm-1', sender_id: 'ann', body: 'Hello?' }] } });
    expect(said.status).toBe(202);
    await tg.chatOf('partner', 't-1');

    await tg.agentReply('partner', 't-1', 'First answer');
    const first = await tg.waitForDelivery('partner', { statuses: ['dead'] });
    await until(async () => alerts.length === 1, 30_000, 'the alert of the dead letter');
    const [alert] = alerts;
    expect(alert!.verified).toEqual(alert!.body);
    expect(alert!.body).toMatchObject({ type: 'threadgate.alert', kind: 'delivery_dead', state: 'firing', connector: 'partner', count: 1 });
    expect(alert!.body.title).toBe('partner: 1 delivery dead-lettered (never delivered)');
    expect(alert!.body.latest).toMatchObject({ id: first.id, summary: expect.stringMatching(/^message_created for thread /) });
    expect(alert!.body.latest.link).toBe(`${tg.url}/admin#delivery/${first.id}`);
    expect(`${alert!.body.latest.code}: ${alert!.body.latest.reason}`).toBe(first.error);

    await tg.agentReply('partner', 't-1', 'Second answer');
    await until(async () => (await tg!.gateway.store.read.deliveries.countByStatus('partner')).dead === 2, 30_000, 'the second dead letter');
    const checked = Date.now();
    await until(async () => Date.now() - checked > 1_500, 5_000, 'several checks');
    expect(alerts).toHaveLength(1);

    partnerAnswers = 200;
    await tg.agentReply('partner', 't-1', 'Third answer');
    await tg.waitForDelivery('partner', { statuses: ['delivered'] });
    await until(async () => alerts.length === 2, 30_000, 'the resolved alert');
    expect(alerts[1]!.body).toMatchObject({ kind: 'delivery_dead', state: 'resolved', connector: 'partner', title: 'partner: deliveries get through again' });
    expect(alerts[1]!.verified).toEqual(alerts[1]!.body);
    expect(alerts[1]!.body.id).not.toBe(alert!.body.id);
    // Counted once the webhook's answer is back (a moment after the receiver saw the alert).
    const sent = (state: string) => `threadgate_alerts_sent_total{kind="delivery_dead",state="${state}",destination="webhook",outcome="sent"} 1`;
    const metrics = async () => (await fetch(`${tg!.url}/metrics`)).text();
    await until(async () => (await metrics()).includes(sent('resolved')), 5_000, 'the resolved alert counted');
    expect(await metrics()).toContain(sent('firing'));
  });
});
