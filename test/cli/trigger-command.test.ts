/**
 * `threadgate trigger`: a message_created of its making, for a webhook
 * connector's thread, reaches that connector's outbound URL through the
 * gateway's own receiver (no platform involved), with the thread's chat and
 * configuration from the store; a file from disk travels as a link the
 * connector can fetch; `--to URL --secret S` sends a reply suggestion
 * elsewhere, verifiably signed; wrong words are usage errors.
 */
import { createHmac } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { runCliAsync, startCli } from '../support/cli.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { tempDir } from '../support/temp-dir.ts';
import { until } from '../support/wait.ts';
import { INBOUND_SECRET, OUTBOUND_SECRET } from '../connectors/webhook/fixtures.ts';
import { startReceiver, type Receiver } from '../connectors/webhook/receiver.ts';

let receiver: Receiver | undefined;
let other: Server | undefined;
afterEach(async () => {
  await receiver?.close();
  await new Promise<void>((resolve) => (other ? other.close(() => resolve()) : resolve()));
  receiver = other = undefined;
});

async function deskWithThread(): Promise<{ tg: TestGateway; config: string; chatId: string }> {
  receiver = await startReceiver(OUTBOUND_SECRET, () => ({ status: 200 }));
  const tg = await startTestGateway({ connectors: [{ name: 'desk', type: 'webhook', inbound_secret: INBOUND_SECRET, outbound_url: receiver.url, outbound_secret: OUTBOUND_SECRET }] });
  const raw = JSON.stringify({ thread_id: 'case-9', messages: [{ message_id: 'm-1', sender_id: 'ann@example.com', body: 'Hello' }] });
  const at = new Date();
  const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': new Webhook(INBOUND_SECRET).sign('msg_1', at, raw) };
  expect((await tg.call('POST', '/connectors/desk/messages', raw, headers)).status).toBe(202);
  await until(async () => (await tg.gateway.store.read.threads.byKey('desk', 'case-9'))?.chatId != null, 10_000, 'the chat');
  return { tg, config: join(tg.dir, 'threadgate.yaml'), chatId: (await tg.gateway.store.read.threads.byKey('desk', 'case-9'))!.chatId! };
}

describe('threadgate trigger', () => {
  it('message_created for a webhook connector’s thread reaches its outbound URL, with the chat and configuration of the store', { timeout: 60_000 }, async () => {
    const { tg, config, chatId } = await deskWithThread();
    const r = await runCliAsync(['trigger', 'message_created', '--connector', 'desk', '--thread', 'case-9', '--text', 'Triggered by hand', '--url', tg.gateway.url, '--config', config, '--json']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout) as { status: number; event: { thread_id: string; chat_id: string; channel_config_id: string } };
    expect(out.status).toBe(200);
    const registration = (await tg.gateway.store.read.registrations.get('desk'))!;
    expect(out.event).toMatchObject({ thread_id: 'desk:case-9', chat_id: chatId, channel_config_id: registration.configId });
    await until(async () => receiver!.requests.length === 1, 10_000, 'the delivery at the outbound URL');
    const [delivery] = receiver!.requests;
    expect(delivery!.verified.ok).toBe(true);
    expect(JSON.parse(delivery!.body)).toMatchObject({ type: 'message_created', thread_id: 'desk:case-9', chat_id: chatId, connector: 'desk', message: expect.objectContaining({ message: 'Triggered by hand' }) });
  });

  it('a file by URL goes with the message; a file from disk needs the embedded sandbox', { timeout: 60_000 }, async () => {
    const { tg, config } = await deskWithThread();
    const path = join(tempDir(), 'steps.pdf');
    writeFileSync(path, '%PDF-1.4 the steps');
    // The test gateway's sandbox is not the settings' embedded one: --file needs that, so the file is given by URL.
    const kept = (await tg.sandbox.call('POST', '/_sandbox/files', { type: 'file', name: 'steps.pdf', content_base64: Buffer.from('%PDF-1.4 the steps').toString('base64') })).body as { url: string; name: string };
    expect(kept).toMatchObject({ type: 'file', name: 'steps.pdf', size: 18 });
    const r = await runCliAsync(['trigger', 'message_created', '--connector', 'desk', '--thread', 'desk:case-9', '--file-url', kept.url, '--url', tg.gateway.url, '--config', config]);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^POST .*\/webhooks\/desk → 200 /);
    await until(async () => receiver!.requests.length === 1, 10_000, 'the delivery');
    expect(JSON.parse(receiver!.requests[0]!.body).message.attachments).toEqual([expect.objectContaining({ name: 'steps.pdf' })]);
    const withFile = await runCliAsync(['trigger', 'message_created', '--connector', 'desk', '--thread', 'case-9', '--file', path, '--url', tg.gateway.url, '--config', config]);
    expect(withFile).toMatchObject({ status: 2, stderr: expect.stringContaining('--file needs the embedded sandbox (no platform.url); with a platform give --file-url URL') });
  });

  it('against serve with its embedded sandbox, a file from disk is kept there and reaches the connector as a link to its bytes', { timeout: 60_000 }, async () => {
    receiver = await startReceiver(OUTBOUND_SECRET, () => ({ status: 200 }));
    const dir = tempDir();
    const config = join(dir, 'threadgate.yaml');
    writeFileSync(config, stringify({ store: { path: 'gw.db' }, connectors: [{ name: 'desk', type: 'webhook', inbound_secret: INBOUND_SECRET, outbound_url: receiver.url, outbound_secret: OUTBOUND_SECRET }] }));
    const gw = startCli(['serve', '--port', '0', '--config', config], { cwd: dir });
    const url = String((await gw.waitForLine((l) => l.event === 'gateway_ready', 30_000)).url);
    const raw = JSON.stringify({ thread_id: 'case-3', messages: [{ message_id: 'm-3', sender_id: 'ann@example.com', body: 'Hello' }] });
    const at = new Date();
    const headers = { 'content-type': 'application/json', 'webhook-id': 'msg_3', 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': new Webhook(INBOUND_SECRET).sign('msg_3', at, raw) };
    expect((await fetch(`${url}/connectors/desk/messages`, { method: 'POST', body: raw, headers })).status).toBe(202);
    const path = join(dir, 'steps.pdf');
    writeFileSync(path, '%PDF-1.4 the steps');
    const trigger = ['trigger', 'message_created', '--connector', 'desk', '--thread', 'case-3', '--file', path, '--config', config];
    expect(await runCliAsync(trigger, { cwd: dir })).toMatchObject({ status: 1, stderr: expect.stringMatching(/TG_TRIGGER_FAILED.*cannot reach http:\/\/127\.0\.0\.1:8080\/webhooks\/desk/) });
    await until(async () => (await runCliAsync([...trigger, '--url', url], { cwd: dir })).status === 0, 15_000, 'the trigger, once the thread is stored and registered');
    await until(async () => receiver!.requests.length >= 1, 10_000, 'the delivery');
    const [file] = JSON.parse(receiver!.requests[0]!.body).message.attachments as { name: string; url: string }[];
    expect(file!.name).toBe('steps.pdf');
    expect(Buffer.from(await (await fetch(file!.url)).arrayBuffer()).toString()).toBe('%PDF-1.4 the steps');
    gw.child.kill('SIGTERM');
    expect(await gw.exited).toBe(0);
  });

  it('--to URL --secret S sends a reply suggestion elsewhere, signed with that secret', { timeout: 60_000 }, async () => {
    const { config } = await deskWithThread();
    const got: { body: string; headers: Record<string, unknown> }[] = [];
    other = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c)).on('end', () => (got.push({ body, headers: req.headers }), res.writeHead(202).end('ok')));
    });
    await new Promise<void>((resolve) => other!.listen(0, '127.0.0.1', resolve));
    const to = `http://127.0.0.1:${(other.address() as AddressInfo).port}/hook`;
    const r = await runCliAsync(['trigger', 'reply_suggestion_created', '--connector', 'desk', '--thread', 'case-9', '--text', 'Offer a refund', '--to', to, '--secret', 'elsewhere-secret', '--config', config]);
    expect(r.stdout).toBe(`POST ${to} → 202 ok\n`);
    expect(r.status).toBe(0);
    const { body, headers } = got[0]!;
    expect(JSON.parse(body)).toMatchObject({ event_type: 'reply_suggestion_created', thread_id: 'desk:case-9', reply_suggestion: { suggestion: 'Offer a refund' } });
    const mac = createHmac('sha256', 'elsewhere-secret').update(`${String(headers['x-svc-timestamp'])}.${body}`).digest('hex');
    expect(headers['x-svc-signature']).toBe(`sha256=${mac}`);
  });

  it('refuses an unknown event type, a missing --connector or --thread, --to without --secret, and files on a suggestion', async () => {
    const cases: [string[], string][] = [
      [['trigger', 'message_deleted', '--connector', 'd', '--thread', 't'], 'trigger takes an event type, message_created or reply_suggestion_created, got "message_deleted"'],
      [['trigger', 'message_created', '--thread', 't'], 'trigger needs --connector NAME'],
      [['trigger', 'message_created', '--connector', 'd'], 'trigger needs --thread ID'],
      [['trigger', 'message_created', '--connector', 'd', '--thread', 't', '--to', 'http://x'], '--to and --secret go together'],
      [['trigger', 'reply_suggestion_created', '--connector', 'd', '--thread', 't', '--file-url', 'http://x/a.pdf'], 'a reply suggestion carries no files'],
    ];
    for (const [args, message] of cases) expect(await runCliAsync(args)).toMatchObject({ status: 2, stderr: expect.stringContaining(message) });
  });
});
