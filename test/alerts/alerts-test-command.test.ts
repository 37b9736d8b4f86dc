/**
 * `threadgate alerts test` sends one test alert to each destination of the
 * settings — a signed webhook on port 0, a mail through the real OpenSMTPD
 * to a Dovecot mailbox — and prints each answer; a destination that refuses
 * fails the command with TG_ALERT_TEST_FAILED.
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { MAIN } from '../support/cli.ts';
import { mailServers, waitForMail } from '../support/mail-servers.ts';
import { tempDir } from '../support/temp-dir.ts';

const SECRET = `whsec_${Buffer.from('alerts-test-command-secret-32byt').toString('base64')}`;
const run = promisify(execFile);
let server: Server | undefined;
afterEach(async () => {
  await new Promise((done) => (server ? server.close(done) : done(undefined)));
  server = undefined;
});

async function receiver(status: number): Promise<{ url: string; got: { body: string; headers: Record<string, string> }[] }> {
  const got: { body: string; headers: Record<string, string> }[] = [];
  server = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    got.push({ body, headers: req.headers as Record<string, string> });
    res.writeHead(status).end();
  });
  await new Promise<void>((ready) => server!.listen(0, '127.0.0.1', ready));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/alerts`, got };
}

async function alertsTest(alerts: Record<string, unknown>): Promise<{ code: number; stdout: string; stderr: string }> {
  const file = join(tempDir('alerts-test-'), 'threadgate.yaml');
  writeFileSync(file, stringify({ server: { public_url: 'https://gateway.example.com' }, alerts }));
  try {
    const { stdout, stderr } = await run(process.execPath, [MAIN, 'alerts', 'test', '--config', file], { env: { ...process.env, THREADGATE_CONFIG: '' }, timeout: 30_000 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('threadgate alerts test', () => {
  it('sends a signed test alert to the webhook and a mail to every address, printing each answer', { timeout: 60_000 }, async () => {
    const hook = await receiver(202);
    const mail = mailServers();
    const oncall = await mail.addUser('oncall');
    const answer = await alertsTest({ webhook_url: hook.url, webhook_secret: SECRET, email_to: [oncall.address], smtp: { host: mail.smtp.host, port: mail.smtp.port, from: 'alerts@example.test' } });
    expect(answer.code).toBe(0);
    expect(answer.stdout.split('\n')[0]).toBe(`webhook ${new URL(hook.url).host}: 202`);
    expect(answer.stdout.split('\n')[1]).toMatch(new RegExp(`^email ${oncall.address}: 250 `));
    expect(hook.got).toHaveLength(1);
    const body = new Webhook(SECRET).verify(hook.got[0]!.body, hook.got[0]!.headers) as Record<string, unknown>;
    expect(body).toMatchObject({ type: 'threadgate.alert', state: 'test', title: 'test alert: the alert destinations work', gateway: { public_url: 'https://gateway.example.com' } });
    const [mailed] = await waitForMail(oncall, 1);
    expect(mailed!.subject).toBe('[threadgate] test alert: the alert destinations work');
    expect(mailed!.raw.toString()).toContain(`Alert id: ${String(body.id)}`);
  });

  it('fails with the destination’s answer when the webhook refuses, and without an alerts: section', { timeout: 30_000 }, async () => {
    const hook = await receiver(500);
    const refused = await alertsTest({ webhook_url: hook.url, webhook_secret: SECRET });
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe(`webhook ${new URL(hook.url).host}: failed: the alert webhook at ${new URL(hook.url).host} answered 500\n`);
    expect(refused.stderr).toContain('TG_ALERT_TEST_FAILED');
    const file = join(tempDir('alerts-none-'), 'threadgate.yaml');
    writeFileSync(file, 'server: { port: 0 }\n');
    const none = await run(process.execPath, [MAIN, 'alerts', 'test', '--config', file], { env: { ...process.env, THREADGATE_CONFIG: '' } }).catch((err: { code: number; stderr: string }) => err);
    expect([(none as { code: number }).code, (none as { stderr: string }).stderr]).toEqual([1, expect.stringContaining('the settings have no alerts: section')]);
  });
});
