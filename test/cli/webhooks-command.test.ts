/**
 * `threadgate webhooks sign|verify`, run on the real binary: the headers it
 * prints are checked here with node:crypto (and the Standard Webhooks library),
 * verify explains each refusal, usage errors exit 2, the secret is never
 * printed, and a real gateway accepts what `webhooks sign` signed — on the
 * receiver and on the webhook connector's inbound route.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/errors.ts';
import { webhooksCommand } from '../../src/cli/webhooks-command.ts';
import { startTestSandbox } from '../sandbox/support.ts';
import { RECORDER_MODULE, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { runCliAsync, type CliResult } from '../support/cli.ts';
import { messageCreatedEnvelope } from '../support/events.ts';
import { tempDir } from '../support/temp-dir.ts';

const SECRET = 'tg-test-secret-3f9a';
const BODY = '{"type":"message_created","message":{"message":"héllo"}}';
const nowSeconds = () => Math.floor(Date.now() / 1000);
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data);
const whsec = () => `whsec_${randomBytes(32).toString('base64')}`;

function webhooks(args: string[], input = BODY, env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  return runCliAsync(['webhooks', ...args], { input, env });
}

/** The `Name: value` lines of sign's output, by lower-case name. */
function headersOf(stdout: string): Record<string, string> {
  return Object.fromEntries(stdout.trim().split('\n').map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
}

const headerArgs = (stdout: string) => stdout.trim().split('\n').flatMap((line) => ['--header', line]);

/** Neither stream of a run repeats the secret. */
function expectSecretKept(r: CliResult, secret: string): void {
  expect(r.stdout + r.stderr).not.toContain(secret);
}

describe('webhooks sign (the platform scheme)', () => {
  it('prints X-Svc-Signature (HMAC-SHA256 of "<timestamp>.<body>") and X-Svc-Timestamp; --payload body signs the body alone; --json as an object', async () => {
    const r = await webhooks(['sign', '--secret', SECRET, '--timestamp', '1767225600']);
    expect([r.status, r.stderr]).toEqual([0, '']);
    const expected = `sha256=${hmac(SECRET, `1767225600.${BODY}`).digest('hex')}`;
    expect(r.stdout).toBe(`X-Svc-Signature: ${expected}\nX-Svc-Timestamp: 1767225600\n`);
    expectSecretKept(r, SECRET);

    const body = await webhooks(['sign', '--secret', SECRET, '--timestamp', '1767225600', '--payload', 'body', '--json']);
    expect(JSON.parse(body.stdout)).toEqual({ 'X-Svc-Signature': `sha256=${hmac(SECRET, BODY).digest('hex')}`, 'X-Svc-Timestamp': '1767225600' });
  });

  it('signs at now by default, and follows platform.signature.payload of the settings', async () => {
    const before = nowSeconds();
    const now = headersOf((await webhooks(['sign', '--secret', SECRET])).stdout);
    expect(Number(now['x-svc-timestamp'])).toBeGreaterThanOrEqual(before);
    expect(Number(now['x-svc-timestamp'])).toBeLessThanOrEqual(nowSeconds());

    const file = join(tempDir(), 'threadgate.yaml');
    writeFileSync(file, 'platform:\n  signature:\n    payload: body\n');
    const r = await webhooks(['sign', '--secret', SECRET, '--config', file]);
    expect(headersOf(r.stdout)['x-svc-signature']).toBe(`sha256=${hmac(SECRET, BODY).digest('hex')}`);
  });
});

describe('webhooks verify (the platform scheme)', () => {
  it('prints valid for what sign printed (exit 0)', async () => {
    const signed = await webhooks(['sign', '--secret', SECRET]);
    const r = await webhooks(['verify', '--secret', SECRET, ...headerArgs(signed.stdout)]);
    expect([r.status, r.stdout, r.stderr]).toEqual([0, 'valid\n', '']);
  });

  it('refuses a tampered body, or a body signed under another payload setting: signature mismatch (exit 1)', async () => {
    const signed = await webhooks(['sign', '--secret', SECRET]);
    const tampered = await webhooks(['verify', '--secret', SECRET, ...headerArgs(signed.stdout)], BODY.replace('héllo', 'hello'));
    expect(tampered.status).toBe(1);
    expect(tampered.stdout).toMatch(/^invalid: TG_SIGNATURE_INVALID: signature mismatch/);
    expectSecretKept(tampered, SECRET);
    const otherPayload = await webhooks(['verify', '--secret', SECRET, '--payload', 'body', ...headerArgs(signed.stdout)]);
    expect([otherPayload.status, otherPayload.stdout]).toEqual([1, expect.stringContaining('signature mismatch')]);
  });

  it('refuses a stale or future timestamp, saying by how much, against the 300 s default or --tolerance', async () => {
    const at = nowSeconds() - 712;
    const signed = await webhooks(['sign', '--secret', SECRET, '--timestamp', String(at)]);
    const stale = await webhooks(['verify', '--secret', SECRET, ...headerArgs(signed.stdout)]);
    expect(stale.status).toBe(1);
    const [, age, over] = /^invalid: TG_TIMESTAMP_STALE: timestamp outside the tolerance: (\d+) s old, (\d+) s older than the 300 s tolerance\n$/.exec(stale.stdout)!;
    expect(Number(age)).toBeGreaterThanOrEqual(712);
    expect(Number(age)).toBeLessThan(720);
    expect(Number(over)).toBe(Number(age) - 300);
    expect((await webhooks(['verify', '--secret', SECRET, '--tolerance', '900', ...headerArgs(signed.stdout)])).stdout).toBe('valid\n');

    const ahead = await webhooks(['sign', '--secret', SECRET, '--timestamp', String(nowSeconds() + 3_600)]);
    const future = await webhooks(['verify', '--secret', SECRET, ...headerArgs(ahead.stdout)]);
    expect([future.status, future.stdout]).toEqual([1, expect.stringMatching(/^invalid: TG_TIMESTAMP_FUTURE: .*\d+ s in the future, \d+ s beyond the 300 s tolerance/)]);
  });

  it('refuses a missing or malformed header, naming it (exit 1)', async () => {
    const signed = headersOf((await webhooks(['sign', '--secret', SECRET])).stdout);
    const missing = await webhooks(['verify', '--secret', SECRET, '--header', `X-Svc-Timestamp: ${signed['x-svc-timestamp']}`]);
    expect([missing.status, missing.stdout]).toEqual([1, 'invalid: TG_SIGNATURE_MISSING: header missing: X-Svc-Signature\n']);
    const malformed = await webhooks(['verify', '--secret', SECRET, '--header', `x-svc-timestamp: ${signed['x-svc-timestamp']}`, '--header', 'x-svc-signature: md5=abc']);
    expect([malformed.status, malformed.stdout]).toEqual([1, expect.stringMatching(/^invalid: TG_SIGNATURE_MALFORMED: header malformed: x-svc-signature is not sha256=<64 hex>/)]);
    const json = await webhooks(['verify', '--secret', SECRET, '--json']);
    expect([json.status, JSON.parse(json.stdout)]).toEqual([1, { valid: false, code: 'TG_TIMESTAMP_MISSING', reason: 'header missing: X-Svc-Timestamp' }]);
  });
});

describe('--scheme standard (the webhook connector)', () => {
  it('signs "<id>.<timestamp>.<body>" with the whsec_ key as the connector does; verify and the Standard Webhooks library accept it, a tampered body not', async () => {
    const secret = whsec();
    const r = await webhooks(['sign', '--scheme', 'standard', '--secret', secret, '--id', 'msg_42', '--timestamp', String(nowSeconds())]);
    expect([r.status, r.stderr]).toEqual([0, '']);
    expectSecretKept(r, secret);
    const h = headersOf(r.stdout);
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    expect(h).toEqual({
      'webhook-id': 'msg_42',
      'webhook-timestamp': h['webhook-timestamp'],
      'webhook-signature': `v1,${hmac(key, `msg_42.${h['webhook-timestamp']}.${BODY}`).digest('base64')}`,
    });
    expect(() => new Webhook(secret).verify(BODY, h)).not.toThrow();

    const valid = await webhooks(['verify', '--scheme', 'standard', '--secret', secret, ...headerArgs(r.stdout)]);
    expect([valid.status, valid.stdout]).toEqual([0, 'valid\n']);
    const tampered = await webhooks(['verify', '--scheme', 'standard', '--secret', secret, ...headerArgs(r.stdout)], `${BODY} `);
    expect([tampered.status, tampered.stdout]).toEqual([1, expect.stringMatching(/^invalid: TG_SIGNATURE_INVALID: signature mismatch/)]);
    const noId = await webhooks(['verify', '--scheme', 'standard', '--secret', secret, ...headerArgs(r.stdout).slice(2)]);
    expect([noId.status, noId.stdout]).toEqual([1, 'invalid: TG_SIGNATURE_MISSING: header missing: webhook-id\n']);
  });

  it('refuses a secret the connector would not take, without printing it: verify exit 1, sign TG_SECRET_MALFORMED', async () => {
    const secret = 'not-a-whsec-secret';
    const verify = await webhooks(['verify', '--scheme', 'standard', '--secret', secret, '--header', 'webhook-id: msg_1']);
    expect([verify.status, verify.stdout]).toEqual([1, expect.stringMatching(/^invalid: TG_SECRET_MALFORMED: secret in the wrong form: expected "whsec_"/)]);
    const sign = await webhooks(['sign', '--scheme', 'standard', '--secret', secret]);
    expect([sign.status, sign.stderr]).toEqual([1, expect.stringMatching(/^threadgate webhooks: TG_SECRET_MALFORMED: /)]);
    expectSecretKept(verify, secret);
    expectSecretKept(sign, secret);
  });
});

describe('usage errors (exit 2) and help', () => {
  it.each([
    [['sign'], 'webhooks sign needs --secret S'],
    [['verify', '--header', 'X-Svc-Timestamp: 1'], 'webhooks verify needs --secret S'],
    [['sign', '--secret', SECRET, '--scheme', 'hmac'], 'unknown --scheme "hmac": it takes platform or standard'],
    [['verify', '--secret', SECRET, '--header', 'X-Svc-Signature sha256=00'], '--header number 1 is not "Name: value"'],
    [['verify', '--secret', SECRET, '--scheme', 'standard', '--tolerance', '60'], 'the webhook connector accepts a fixed 300 s'],
    [['sign', '--secret', SECRET, '--timestamp', 'yesterday'], '--timestamp takes Unix seconds'],
    [['sign', '--secret', SECRET, '--payload', 'json'], '--payload takes timestamp.body or body'],
    [['verify', '--secret', SECRET, '--timestamp', '1'], '--timestamp does not go with webhooks verify'],
    [[], 'webhooks takes a subcommand: sign or verify'],
  ])('webhooks %j: names the reason', async (args, reason) => {
    const r = await webhooks(args);
    expect([r.status, r.stdout]).toEqual([2, '']);
    expect(r.stderr.split('\n')[0]).toContain(reason);
    expectSecretKept(r, SECRET);
  });

  it('refuses to wait for a body when standard input is a terminal', async () => {
    const terminal = Object.assign(Readable.from([]), { isTTY: true });
    await expect(webhooksCommand(['sign', '--secret', SECRET], terminal)).rejects.toThrow(UsageError);
    await expect(webhooksCommand(['verify', '--secret', SECRET], terminal)).rejects.toThrow(/standard input, which is a terminal/);
  });

  it('webhooks --help and help webhooks print both subcommands (exit 0)', async () => {
    const [flag, word] = await Promise.all([runCliAsync(['webhooks', '--help']), runCliAsync(['help', 'webhooks'])]);
    expect([flag.status, word.status, word.stdout]).toEqual([0, 0, flag.stdout]);
    expect(flag.stdout).toMatch(/^threadgate webhooks sign: [^]*--timestamp T[^]*threadgate webhooks verify: [^]*--tolerance SECONDS/);
  });
});

describe('a real gateway accepts what webhooks sign signed', () => {
  const desk = { name: 'desk', type: 'recorder', module: RECORDER_MODULE };

  async function eventFor(tg: TestGateway): Promise<{ raw: string; secret: string }> {
    const { configId, secret } = (await tg.gateway.store.read.registrations.get('desk'))!;
    const event = messageCreatedEnvelope({ threadId: 'desk:T-sign', configId, roomId: tg.sandbox.roomId, messagingChannel: 'recorder' });
    return { raw: JSON.stringify(event), secret };
  }

  it('the receiver: 200 for the signed event, 401 for the same headers on another body; with payload body in the settings, via --config', async () => {
    const tg = await startTestGateway({ connectors: [desk] });
    const { raw, secret } = await eventFor(tg);
    const signed = await webhooks(['sign', '--secret', secret], raw);
    const ok = await tg.call('POST', '/webhooks/desk', raw, headersOf(signed.stdout));
    expect([ok.status, ok.body]).toEqual([200, expect.objectContaining({ received: true, duplicate: false })]);
    const other = await tg.call('POST', '/webhooks/desk', raw.replace('desk:T-sign', 'desk:T-else'), headersOf(signed.stdout));
    expect([other.status, other.body?.code]).toEqual([401, 'TG_SIGNATURE_INVALID']);

    const sandbox = await startTestSandbox({ retryBaseMs: 20 });
    const platform = { url: sandbox.url, organization_id: sandbox.organizationId, token: sandbox.token, signature: { payload: 'body' } };
    const bodyOnly = await startTestGateway({ connectors: [desk], sandbox, settings: { platform } });
    const second = await eventFor(bodyOnly);
    const config = join(bodyOnly.dir, 'threadgate.yaml');
    const signedBody = await webhooks(['sign', '--secret', second.secret, '--config', config], second.raw);
    expect((await bodyOnly.call('POST', '/webhooks/desk', second.raw, headersOf(signedBody.stdout))).status).toBe(200);
    expect((await webhooks(['verify', '--secret', second.secret, '--config', config, ...headerArgs(signedBody.stdout)], second.raw)).stdout).toBe('valid\n');
  });

  it("the webhook connector's inbound route: 202 for a batch signed with --scheme standard", async () => {
    const secret = whsec();
    const tg = await startTestGateway({ connectors: [{ name: 'helpdesk', type: 'webhook', inbound_secret: secret }] });
    const raw = JSON.stringify({ thread_id: 'case-9', messages: [{ message_id: 'in-9', sender_id: 'ann@example.com', body: 'signed by the CLI' }] });
    const signed = await webhooks(['sign', '--scheme', 'standard', '--secret', secret], raw);
    const res = await tg.call('POST', '/connectors/helpdesk/messages', raw, headersOf(signed.stdout));
    expect([res.status, res.body]).toEqual([202, expect.objectContaining({ accepted: 1 })]);
  });
});
