/**
 * The webhook connector's settings: defaults, and every mistake refused with
 * the key it is about, so a bad entry fails at start-up with a message that
 * says which line to fix — and never repeats a secret.
 */
import { describe, expect, it } from 'vitest';
import { WebhookConnectorConfig } from '../../../connectors/webhook/config.ts';
import webhookConnector from '../../../connectors/webhook/index.ts';
import { INBOUND_SECRET, OUTBOUND_SECRET } from './fixtures.ts';

function problems(settings: Record<string, unknown>): { path: string; message: string }[] {
  const result = WebhookConnectorConfig.safeParse(settings);
  if (result.success) throw new Error('expected the settings to be refused');
  return result.error.issues.map((issue) => ({
    path: [...issue.path.map(String), ...(issue.code === 'unrecognized_keys' ? issue.keys : [])].join('.'),
    message: issue.message,
  }));
}

const valid = {
  inbound_secret: INBOUND_SECRET,
  outbound_url: 'https://partner.example/threadgate',
  outbound_secret: OUTBOUND_SECRET,
};

describe('webhook connector settings', () => {
  it('is the schema the definition declares, with type "webhook"', () => {
    expect(webhookConnector.type).toBe('webhook');
    expect(webhookConnector.configSchema).toBe(WebhookConnectorConfig);
  });

  it('fills defaults: allow_unsigned false, timeout_ms 5000', () => {
    expect(WebhookConnectorConfig.parse(valid)).toEqual({ ...valid, allow_unsigned: false, timeout_ms: 5_000 });
  });

  it('accepts allow_unsigned alone (the local demo) and no outbound side at all', () => {
    expect(WebhookConnectorConfig.parse({ allow_unsigned: true })).toEqual({ allow_unsigned: true, timeout_ms: 5_000 });
  });

  it('requires inbound_secret unless allow_unsigned is true', () => {
    // Guards against a connector that silently accepts unsigned requests because a secret was forgotten.
    expect(problems({})).toEqual([{ path: 'inbound_secret', message: expect.stringContaining('required') }]);
    expect(problems({ allow_unsigned: false })).toEqual([{ path: 'inbound_secret', message: expect.any(String) }]);
  });

  it('refuses inbound_secret together with allow_unsigned: true, naming allow_unsigned', () => {
    expect(problems({ inbound_secret: INBOUND_SECRET, allow_unsigned: true })).toEqual([
      { path: 'allow_unsigned', message: expect.stringContaining('inbound_secret') },
    ]);
  });

  it.each([
    ['no whsec_ prefix', INBOUND_SECRET.slice('whsec_'.length)],
    ['not base64', 'whsec_not*base64!'],
    ['too short (8 bytes)', `whsec_${Buffer.alloc(8, 1).toString('base64')}`],
    ['empty', ''],
  ])('refuses an inbound_secret that is %s, without echoing it', (_case, secret) => {
    const found = problems({ inbound_secret: secret });
    expect(found).toEqual([{ path: 'inbound_secret', message: expect.stringContaining('whsec_') }]);
    if (secret.length > 6) expect(JSON.stringify(found)).not.toContain(secret);
  });

  it('refuses outbound_url without outbound_secret, naming outbound_secret', () => {
    expect(problems({ inbound_secret: INBOUND_SECRET, outbound_url: 'https://partner.example/x' })).toEqual([
      { path: 'outbound_secret', message: 'required when outbound_url is set' },
    ]);
  });

  it('refuses outbound_secret without outbound_url, naming outbound_url', () => {
    expect(problems({ inbound_secret: INBOUND_SECRET, outbound_secret: OUTBOUND_SECRET })).toEqual([
      { path: 'outbound_url', message: 'required when outbound_secret is set' },
    ]);
  });

  it.each(['ftp://partner.example/x', 'not a url', 'partner.example/x'])('refuses outbound_url %s', (url) => {
    expect(problems({ ...valid, outbound_url: url })).toEqual([{ path: 'outbound_url', message: 'expected an http(s) URL' }]);
  });

  it('refuses outbound_url with credentials, which would be dropped, without echoing them', () => {
    const found = problems({ ...valid, outbound_url: 'https://user:hunter2@partner.example/x' });
    expect(found).toEqual([{ path: 'outbound_url', message: 'must not carry user:password@' }]);
    expect(JSON.stringify(found)).not.toContain('hunter2');
  });

  it('refuses a bad outbound_secret, naming outbound_secret', () => {
    expect(problems({ ...valid, outbound_secret: 'hunter2' })).toEqual([
      { path: 'outbound_secret', message: expect.stringContaining('whsec_') },
    ]);
  });

  it.each([0, 99, 60_001, 1.5, '5000'])('refuses timeout_ms %j', (timeout) => {
    expect(problems({ ...valid, timeout_ms: timeout })).toEqual([{ path: 'timeout_ms', message: expect.any(String) }]);
  });

  it('refuses allow_unsigned that is not a boolean', () => {
    expect(problems({ allow_unsigned: 'yes' })).toEqual([{ path: 'allow_unsigned', message: expect.any(String) }]);
  });

  it('refuses an unknown key (a typo) by name', () => {
    // Guards against `outbound_ulr:` leaving replies silently undelivered.
    expect(problems({ ...valid, outbound_ulr: 'https://partner.example/x' })).toEqual([
      { path: 'outbound_ulr', message: 'Unrecognized key: "outbound_ulr"' },
    ]);
  });

  it('names every bad key of one entry', () => {
    const paths = problems({ inbound_secret: 'x', outbound_url: 'ftp://x', timeout_ms: -1 }).map((p) => p.path);
    expect(paths.sort()).toEqual(['inbound_secret', 'outbound_secret', 'outbound_url', 'timeout_ms']);
  });
});
