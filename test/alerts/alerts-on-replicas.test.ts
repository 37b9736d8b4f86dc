/**
 * Two replicas on one PostgreSQL database watch for alerts under one lease:
 * a dead letter brings one alert, not one per replica, and the watch's state
 * (what was told) is kept in the store for whichever replica holds the lease.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WATCH_KEY, WATCH_OWNER } from '../../src/alerts/alert-watch.ts';
import { startTestGateway } from '../support/gateway.ts';
import { until } from '../support/wait.ts';

const SECRET = `whsec_${Buffer.from('alerts-on-replicas-secret-32byte').toString('base64')}`;
let servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => new Promise((done) => s.close(done))));
  servers = [];
});

async function listen(answer: (body: string) => number): Promise<string> {
  const server = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    res.writeHead(answer(body)).end();
  });
  servers.push(server);
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('alerts on two replicas', () => {
  it('one dead letter is one alert, whichever replica delivered it', { timeout: 90_000 }, async () => {
    const alerts: any[] = [];
    const alertUrl = await listen((body) => {
      alerts.push(JSON.parse(body));
      return 200;
    });
    const partnerUrl = await listen(() => 400);
    const connector = { name: 'partner', type: 'webhook', allow_unsigned: true, outbound_url: `${partnerUrl}/hook`, outbound_secret: SECRET };
    const settings = { alerts: { webhook_url: alertUrl, webhook_secret: SECRET, check_every: '200ms', every: '15m' } };
    const a = await startTestGateway({ connectors: [connector], store: 'postgres', settings });
    const b = await startTestGateway({ connectors: [connector], sandbox: a.sandbox, sameStoreAs: a, settings });
    const said = await a.call('POST', '/connectors/partner/messages', { thread_id: 't-1', messages: [{ message_id: 'm-1', sender_id: 'ann', body: 'Hello?' }] });
    expect(said.status).toBe(202);
    const chatOf = async () => ((await a.gateway.store.read.sql.get('select chat_id as "chatId" from threads where connector = ?', ['partner'])) as { chatId: string | null } | undefined)?.chatId;
    await until(async () => (await chatOf()) != null, 30_000, 'the chat on the platform');
    const answered = await a.sandbox.call('POST', `/_sandbox/chats/${await chatOf()}/agent_messages`, { text: 'An answer the partner refuses' });
    expect(answered.status).toBeLessThan(300);
    await until(async () => (await a.gateway.store.read.deliveries.countByStatus('partner')).dead === 1, 30_000, 'the dead letter');
    await until(async () => alerts.length >= 1, 30_000, 'the alert');
    const kept = await b.gateway.store.read.state.get(WATCH_OWNER, WATCH_KEY);
    // Both replicas check every 200 ms; two seconds more would bring the second one's alert, were there one.
    const seen = Date.now();
    await until(async () => Date.now() - seen > 2_000, 5_000, 'more checks');
    expect(alerts.map((x) => [x.kind, x.state, x.connector, x.count])).toEqual([['delivery_dead', 'firing', 'partner', 1]]);
    expect(Object.keys((kept as { gate: object }).gate)).toEqual(['delivery_dead|partner']);
  });
});
