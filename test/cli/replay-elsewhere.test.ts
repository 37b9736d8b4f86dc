/**
 * Pointing stored production webhooks at another gateway: `replay <id> --to`
 * re-signs with a fresh timestamp (with --secret, or deliberately with the
 * connector's live secret), and `deliveries export` + `replay --from file
 * --to` do the same from a file. Without a named secret nothing is sent.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../src/platform/signature.ts';
import { startReceiver } from '../sandbox/support.ts';
import { until } from '../support/wait.ts';
import { runCliAsync } from '../support/cli.ts';
import { RECORDER_MODULE, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { tempDir } from '../support/temp-dir.ts';

const WAIT_MS = 8_000;
const desk = { name: 'desk', type: 'recorder', module: RECORDER_MODULE };

async function withOneDelivery(): Promise<{ tg: TestGateway; id: number; cli: (...a: string[]) => ReturnType<typeof runCliAsync> }> {
  const tg = await startTestGateway({ connectors: [desk] });
  await tg.call('POST', '/connectors/desk/submit', { threadKey: 'T1', messageId: 'm1', senderId: 'a@b.c', body: 'hi' });
  await until(async () => (await tg.gateway.store.read.threads.byKey('desk', 'T1'))?.chatId != null, WAIT_MS, 'a chat');
  await tg.sandbox.call('POST', `/_sandbox/chats/${(await tg.gateway.store.read.threads.byKey('desk', 'T1'))!.chatId}/agent_messages`, { text: 'production reply' });
  await until(async () => (await tg.gateway.store.read.deliveries.countByStatus('desk')).delivered === 1, WAIT_MS, 'the delivery');
  const id = ((await tg.gateway.store.read.sql.get(`select id from deliveries`)) as { id: number }).id;
  return { tg, id, cli: (...a) => runCliAsync([...a, '--config', join(tg.dir, 'threadgate.yaml')]) };
}

describe('threadgate replay --to', () => {
  it('re-signs a stored delivery for a staging gateway with --secret, which accepts and delivers it', async () => {
    const prod = await withOneDelivery();
    const staging = await startTestGateway({ connectors: [desk] });
    const stagingSecret = (await staging.gateway.store.read.registrations.get('desk'))!.secret;
    const r = await prod.cli('replay', String(prod.id), '--to', `${staging.gateway.url}/webhooks/desk`, '--secret', stagingSecret);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(new RegExp(`^${prod.id}: 200 \\{"received":true,"duplicate":false`));
    expect(r.status).toBe(0);
    await until(async () => (await staging.gateway.store.read.deliveries.countByStatus('desk')).delivered === 1, WAIT_MS, 'the delivery at staging');
    const row = (await staging.gateway.store.read.sql.get(`select body, verification from deliveries`)) as { body: string; verification: string };
    expect(row.verification).toBe('valid');
    expect(JSON.parse(row.body).message.message).toBe('production reply');
  });

  it('export writes NDJSON; --from with --sign-with-live-secret sends each line signed with the connector secret, which the receiver verifies', async () => {
    const prod = await withOneDelivery();
    const exported = await prod.cli('deliveries', 'export', '--since', '1h');
    expect(exported.stderr).toBe('1 deliveries exported\n');
    const lines = exported.stdout.trim().split('\n').map((l) => JSON.parse(l) as { id: number; body: string; headers: Record<string, string> });
    expect(lines).toHaveLength(1);
    expect(lines[0]!.headers['x-svc-signature']).toMatch(/^sha256=/);
    const file = join(tempDir(), 'prod.ndjson');
    writeFileSync(file, exported.stdout);

    const receiver = await startReceiver();
    const sent = await prod.cli('replay', '--from', file, '--to', receiver.url, '--sign-with-live-secret');
    expect(sent.status).toBe(0);
    const [req] = await receiver.waitFor(1);
    expect(req!.rawBody).toBe(lines[0]!.body);
    const secret = (await prod.tg.gateway.store.read.registrations.get('desk'))!.secret;
    expect(() => verifyWebhook({ secrets: [secret], rawBody: req!.rawBody, signature: req!.headers['x-svc-signature'] as string, timestamp: req!.headers['x-svc-timestamp'] as string })).not.toThrow();
  });

  it('sends nothing without --secret or --sign-with-live-secret: a usage error naming both, exit 2', async () => {
    // Guards against: `--to` silently re-signing with the live production secret, so the receiver could replay it to production.
    const prod = await withOneDelivery();
    const exported = await prod.cli('deliveries', 'export', '--since', '1h');
    const file = join(tempDir(), 'prod.ndjson');
    writeFileSync(file, exported.stdout);
    const receiver = await startReceiver();
    for (const args of [[String(prod.id), '--to', receiver.url], ['--from', file, '--to', receiver.url]]) {
      const r = await prod.cli('replay', ...args);
      expect(r.status).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^threadgate replay: --to needs the secret to sign with: --secret S .* or --sign-with-live-secret /);
    }
    expect(receiver.received).toEqual([]); // the command has exited: anything it sent was received and answered
  });

  it('refuses what cannot work with a usage error naming it', async () => {
    const prod = await withOneDelivery();
    expect((await prod.cli('replay', String(prod.id), '--to', 'not a url')).stderr).toContain('--to must be an http(s) URL');
    expect((await prod.cli('replay', '--status', 'dead', '--to', 'http://127.0.0.1:9/x')).stderr).toContain('not a --status filter');
    expect((await prod.cli('replay', '--from', '/nonexistent.ndjson', '--to', 'http://127.0.0.1:9/x', '--secret', 's')).stderr).toContain('cannot read /nonexistent.ndjson: ENOENT');
    const both = await prod.cli('replay', String(prod.id), '--to', 'http://127.0.0.1:9/x', '--secret', 's', '--sign-with-live-secret');
    expect([both.status, both.stderr]).toEqual([2, 'threadgate replay: give --secret S or --sign-with-live-secret, not both\n']);
    expect((await prod.cli('replay', String(prod.id), '--sign-with-live-secret')).stderr).toContain('--secret and --sign-with-live-secret go with --to');
    const missing = await prod.cli('replay', '424242', '--to', 'http://127.0.0.1:9/x', '--sign-with-live-secret');
    expect(missing.status).toBe(1);
    expect(missing.stdout).toContain('424242: no delivery 424242');
  });
});
