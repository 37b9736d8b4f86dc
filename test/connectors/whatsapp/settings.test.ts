/**
 * The WhatsApp connector's settings: the documented defaults (the Graph API
 * at graph.facebook.com, version v26.0, the shared attachment limits), and
 * every bad value refused with a problem naming its key — never repeating a
 * secret.
 */
import { describe, expect, it } from 'vitest';
import { WhatsAppConnectorConfig } from '../../../connectors/whatsapp/config.ts';

const SECRETS = { access_token: 'EAAG-very-secret-token-value', app_secret: '0123456789abcdef0123456789abcdef', verify_token: 'my-verify-token' };
const valid = { phone_number_id: '106540352242922', ...SECRETS };

/** The problems of `settings`, as `path: message`. */
function problems(settings: Record<string, unknown>): string[] {
  const parsed = WhatsAppConnectorConfig.safeParse(settings);
  if (parsed.success) return [];
  return parsed.error.issues.map((i) => `${i.path.join('.') || (i as { keys?: string[] }).keys?.join(',')}: ${i.message}`);
}

describe('WhatsApp connector settings', () => {
  it('fills in the documented defaults', () => {
    expect(WhatsAppConnectorConfig.parse(valid)).toEqual({
      ...valid,
      api_url: 'https://graph.facebook.com',
      api_version: 'v26.0',
      timeout_ms: 10_000,
      attachments: { keep: true, max_file_bytes: 10 * 1024 * 1024, max_message_bytes: 25 * 1024 * 1024 },
    });
  });

  it('takes a phone number id written as a YAML number when it is exact, and a template with its language', () => {
    const parsed = WhatsAppConnectorConfig.parse({ ...valid, phone_number_id: 106540352242922, template: { name: 'reopen_conversation', language: 'en_US' }, api_url: 'http://127.0.0.1:8089/' });
    expect(parsed).toMatchObject({ phone_number_id: '106540352242922', template: { name: 'reopen_conversation', language: 'en_US' }, api_url: 'http://127.0.0.1:8089' });
  });

  it('refuses each bad value naming its key', () => {
    expect(problems({ ...valid, phone_number_id: 12345678901234567890 })).toEqual([expect.stringMatching(/^phone_number_id: .*quote a long one/)]);
    expect(problems({ ...valid, phone_number_id: '+49 151 1234' })).toEqual([expect.stringMatching(/^phone_number_id: expected the phone number id: digits only/)]);
    expect(problems({ ...valid, access_token: undefined })).toEqual([expect.stringMatching(/^access_token: expected a WhatsApp access token/)]);
    expect(problems({ ...valid, app_secret: 'short' })).toEqual([expect.stringMatching(/^app_secret: expected the Meta app’s secret .*at least 16 characters/)]);
    expect(problems({ ...valid, verify_token: '' })).toEqual([expect.stringMatching(/^verify_token: /)]);
    expect(problems({ ...valid, api_url: 'https://user:pw@graph.facebook.com' })).toEqual([expect.stringMatching(/^api_url: must not carry user:password@/)]);
    expect(problems({ ...valid, api_url: 'ftp://graph.facebook.com' })).toEqual([expect.stringMatching(/^api_url: expected the http\(s\) URL/)]);
    expect(problems({ ...valid, api_version: 'v26' })).toEqual([expect.stringMatching(/^api_version: expected a Graph API version such as v26\.0/)]);
    expect(problems({ ...valid, template: { name: 'Reopen Conversation', language: 'en_US' } })).toEqual([expect.stringMatching(/^template\.name: /)]);
    expect(problems({ ...valid, template: { name: 'reopen', language: 'english' } })).toEqual([expect.stringMatching(/^template\.language: /)]);
    expect(problems({ ...valid, template: { name: 'reopen' } })).toEqual([expect.stringMatching(/^template\.language: /)]);
    expect(problems({ ...valid, attachments: { max_file_bytes: 0 } })).toEqual([expect.stringMatching(/^attachments\.max_file_bytes: /)]);
    expect(problems({ ...valid, timeout_ms: 50 })).toEqual([expect.stringMatching(/^timeout_ms: /)]);
    expect(problems({ ...valid, verify_tokn: 'typo' })).toEqual([expect.stringMatching(/verify_tokn/)]);
  });

  it('never repeats a secret in a problem', () => {
    const wrong = { phone_number_id: 'x', access_token: 'short-tok', app_secret: 'tiny-secret', verify_token: 'vt' };
    const text = problems(wrong).join('\n');
    expect(text).not.toBe('');
    for (const value of Object.values(wrong)) if (value.length > 2) expect(text).not.toContain(value);
  });
});
