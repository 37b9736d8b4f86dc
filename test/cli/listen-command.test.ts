/**
 * `threadgate listen` against a real gateway (the sandbox as the platform,
 * the webhook connector): it prints an agent reply's webhook as it arrives,
 * with the delivery that follows, and with `--forward-to` POSTs a copy that
 * verifies with the listening secret it printed (checked here with
 * node:crypto, not the gateway's code). A reader that never reads does not
 * delay the gateway's answers, and is told what it lost. A refused admin
 * token ends it with TG_LISTEN_REFUSED.
 */
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { messageCreatedEnvelope } from '../support/events.ts';
import { runCliAsync, startCli } from '../support/cli.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { until } from '../support/wait.ts';
import { signedHeaders } from '../../src/platform/signature.ts';
import { INBOUND_SECRET, OUTBOUND_SECRET } from '../connectors/webhook/fixtures.ts';
import { startReceiver } from '../connectors/webhook/receiver.ts';
import { Webhook } from 'standardwebhooks';

const ADMIN = 'an-admin-token-of-the-listen-test';
let local: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (local ? local.close(() => resolve()) : resolve())));

async function desk(outboundUrl: string): Promise<TestGateway> {
  return startTestGateway({
    connectors: [{ name: 'desk', type: 'webhook', inbound_secret: INBOUND_SECRET, outbound_url: outboundUrl, outbound_secret: OUTBOUND_SECRET }],
    settings: { server: { admin_token: ADMIN } },
  });
}

/** A customer's message through the connector's route: the thread and its chat. */
async function chatOf(tg: TestGateway, thread: string): Promise<string> {
  const raw = JSON.stringify({ thread_id: thread, messages: [{ message_id: `m-${thread}`, sender_id: 'ann@example.com', body: 'Hello' }] });
  const id = `msg_${thread}`;
  const at = new Date();
  const headers = { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': new Webhook(INBOUND_SECRET).sign(id, at, raw) };
  expect((await tg.call('POST', '/connectors/desk/messages', raw, headers)).status).toBe(202);
  await until(async () => (await tg.gateway.store.read.threads.byKey('desk', thread))?.chatId != null, 10_000, 'the chat');
  return (await tg.gateway.store.read.threads.byKey('desk', thread))!.chatId!;
}

describe('threadgate listen', () => {
  it('--json --forward-to prints an agent reply’s webhook and its delivery, and forwards a copy signed with the printed secret', { timeout: 60_000 }, async () => {
    const copies: { body: string; headers: Record<string, string | string[] | undefined> }[] = [];
    local = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c)).on('end', () => {
        copies.push({ body, headers: req.headers });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => local!.listen(0, '127.0.0.1', resolve));
    const forwardTo = `http://127.0.0.1:${(local.address() as AddressInfo).port}/hook`;
    const receiver = await startReceiver(OUTBOUND_SECRET, () => ({ status: 200 }));
    const tg = await desk(receiver.url);
    const chatId = await chatOf(tg, 'case-1');

    const listen = startCli(['listen', '--url', tg.gateway.url, '--admin-token', ADMIN, '--json', '--forward-to', forwardTo]);
    const start = await listen.waitForLine((l) => l.kind === 'listening');
    expect(start).toMatchObject({ url: tg.gateway.url, forward_to: forwardTo, secret: expect.stringMatching(/^tgl_/) });
    await until(async () => (await tg.call('GET', '/readyz')).status === 200, 5_000, 'ready');
    await new Promise((r) => setTimeout(r, 300)); // the stream is open once the listening line is out and the request reached the gateway

    await tg.sandbox.call('POST', `/_sandbox/chats/${chatId}/agent_messages`, { text: 'We are on it' });
    const webhook = await listen.waitForLine((l) => l.kind === 'webhook' && l.event_type === 'message_created');
    expect(webhook).toMatchObject({ connector: 'desk', result: 'accepted', thread_id: 'desk:case-1', chat_id: chatId, verification: 'valid' });
    expect(webhook.raw).toBeUndefined();
    expect(await listen.waitForLine((l) => l.kind === 'delivery')).toMatchObject({ connector: 'desk', status: 'delivered', attempt: 1, delivery_id: webhook.delivery_id });
    expect(await listen.waitForLine((l) => l.kind === 'forwarded')).toMatchObject({ to: forwardTo, status: 204, seq: webhook.seq });

    expect(copies).toHaveLength(1);
    const { body, headers } = copies[0]!;
    expect(JSON.parse(body)).toMatchObject({ event_type: 'message_created', thread_id: 'desk:case-1', message: { message: 'We are on it' } });
    const timestamp = String(headers['x-svc-timestamp']);
    const expected = `sha256=${createHmac('sha256', String(start.secret)).update(`${timestamp}.${body}`).digest('hex')}`;
    expect(headers['x-svc-signature']).toBe(expected);
    expect(Math.abs(Date.now() / 1000 - Number(timestamp))).toBeLessThan(60);
    await receiver.close();
  });

  it('a reader that never reads does not delay the gateway; it is told how many events it lost', { timeout: 60_000 }, async () => {
    const receiver = await startReceiver(OUTBOUND_SECRET, () => ({ status: 200 }));
    const tg = await desk(receiver.url);
    await chatOf(tg, 'case-2');
    const registration = (await tg.gateway.store.read.registrations.get('desk'))!;
    // With their raw bodies (60 KB each), 300 events are more than the sockets between here and the gateway hold.
    const stalled = await fetch(`${tg.gateway.url}/admin/api/events?events=webhook&raw=true&max=10`, { headers: { authorization: `Bearer ${ADMIN}` } });
    expect(stalled.status).toBe(200);
    const reader = stalled.body!.getReader();

    // 300 webhooks, each an answer the gateway must give while this reader reads nothing.
    const answers: number[] = [];
    for (let i = 0; i < 300; i++) {
      const body = JSON.stringify(messageCreatedEnvelope({ threadId: 'desk:case-2', text: `reply ${i} ${'x'.repeat(60_000)}` }));
      const res = await tg.call('POST', '/webhooks/desk', body, signedHeaders(registration.secret, body, 'timestamp.body'));
      answers.push(res.status);
    }
    expect(answers.filter((s) => s !== 200)).toEqual([]);

    let text = '';
    const decoder = new TextDecoder();
    while (!/event: gap\ndata: \{[^\n]*"lost":\d+/.test(text)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    const lost = Number(/event: gap\ndata: \{[^\n]*"lost":(\d+)/.exec(text)?.[1]);
    expect(lost).toBeGreaterThan(0);
    expect(lost).toBeLessThan(300);
    await reader.cancel();
    await receiver.close();
  });

  it('a refused admin token ends it at once: exit 1, TG_LISTEN_REFUSED, the token not printed', async () => {
    const tg = await desk('http://127.0.0.1:9/none');
    const r = await runCliAsync(['listen', '--url', tg.gateway.url, '--admin-token', 'not-the-admin-token-at-all']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/TG_LISTEN_REFUSED.*answered 401 \(the admin token was refused\)/);
    expect(r.stderr + r.stdout).not.toContain('not-the-admin-token-at-all');
  });
});
