/**
 * The check of Slack's request signature (request-signature.ts), on
 * requests signed here as Slack signs them: a good one passes; a wrong
 * secret, an altered body, a timestamp more than 5 minutes old or ahead, a
 * missing header and a signature without `v0=` are each refused with 401
 * TG_SIGNATURE_INVALID naming the check, never the signature.
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { RequestVerifier, SlackSignatureRefusedError } from '../../../connectors/slack/request-signature.ts';

const SECRET = '8f742231b10e8888abcd99yyyzzz85a5';
const NOW = 1_718_000_000;
const body = Buffer.from('{"type":"event_callback","event":{"type":"message","text":"Hi"}}');

function signed(raw: Buffer, seconds = NOW, secret = SECRET): Record<string, string> {
  const digest = createHmac('sha256', secret).update(`v0:${seconds}:`).update(raw).digest('hex');
  return { 'x-slack-request-timestamp': String(seconds), 'x-slack-signature': `v0=${digest}` };
}

function refusal(headers: Record<string, string | undefined>, raw = body): SlackSignatureRefusedError | undefined {
  try {
    new RequestVerifier(SECRET).verify({ headers, rawBody: raw }, NOW);
    return undefined;
  } catch (err) {
    if (err instanceof SlackSignatureRefusedError) return err;
    throw err;
  }
}

describe('Slack request signatures', () => {
  it('takes a request signed with the signing secret within 5 minutes, either way', () => {
    expect(refusal(signed(body))).toBeUndefined();
    expect(refusal(signed(body, NOW - 299))).toBeUndefined();
    expect(refusal(signed(body, NOW + 299))).toBeUndefined();
  });

  it('refuses a wrong secret, an altered body and an upper-case-less prefix as a mismatch', () => {
    expect(refusal(signed(body, NOW, 'another-secret-of-32-characters!'))?.refusal).toBe('mismatch');
    expect(refusal(signed(body), Buffer.from(body.toString().replace('Hi', 'Ho')))?.refusal).toBe('mismatch');
    const headers = signed(body);
    expect(refusal({ ...headers, 'x-slack-signature': headers['x-slack-signature']!.replace('v0=', '') })?.refusal).toBe('mismatch');
    expect(refusal({ ...headers, 'x-slack-signature': headers['x-slack-signature']!.replace('v0=', 'v1=') })?.refusal).toBe('mismatch');
  });

  it('refuses an old or future timestamp even when signed with it (a replay), and a missing or unreadable one', () => {
    expect(refusal(signed(body, NOW - 301))?.refusal).toBe('too_old');
    expect(refusal(signed(body, NOW + 301))?.refusal).toBe('too_new');
    const headers = signed(body);
    expect(refusal({ 'x-slack-signature': headers['x-slack-signature'] })?.refusal).toBe('missing');
    expect(refusal({ 'x-slack-request-timestamp': headers['x-slack-request-timestamp'] })?.refusal).toBe('missing');
    expect(refusal({ ...headers, 'x-slack-request-timestamp': 'yesterday' })?.refusal).toBe('malformed');
  });

  it('answers 401 TG_SIGNATURE_INVALID with the check that failed, without the signature', () => {
    const headers = signed(body, NOW - 600);
    const err = refusal(headers)!;
    expect([err.statusCode, err.code]).toEqual([401, 'TG_SIGNATURE_INVALID']);
    expect(err.message).toMatch(/more than 5 minutes old/);
    expect(err.message).not.toContain(headers['x-slack-signature']!.slice(3, 20));
  });
});
