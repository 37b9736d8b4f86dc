/**
 * The Telegram connector's settings (connectors/telegram/config.ts): the
 * defaults the docs name; every bad value refused with the key it is about
 * and without repeating a token or a secret; webhook_url required in webhook
 * mode and refused in polling mode; the webhook secret's characters as
 * Telegram allows them; the derived webhook secret stable, per connector,
 * and of Telegram's alphabet.
 */
import { describe, expect, it } from 'vitest';
import { TelegramConnectorConfig } from '../../../connectors/telegram/config.ts';
import { webhookSecretOf } from '../../../connectors/telegram/webhook-mode.ts';

const TOKEN = '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw';

function problems(input: Record<string, unknown>): { path: string; message: string }[] {
  const parsed = TelegramConnectorConfig.safeParse(input);
  if (parsed.success) return [];
  return parsed.error.issues.map((i) => ({ path: i.path.join('.') || (i as { keys?: string[] }).keys?.join(',') || '', message: i.message }));
}

describe('Telegram connector settings', () => {
  it('takes a token alone, with the documented defaults', () => {
    expect(TelegramConnectorConfig.parse({ bot_token: TOKEN })).toEqual({
      bot_token: TOKEN,
      mode: 'polling',
      api_url: 'https://api.telegram.org',
      allow_groups: false,
      poll_timeout_seconds: 25,
      timeout_ms: 10_000,
      attachments: { keep: true, max_file_bytes: 10 * 1024 * 1024, max_message_bytes: 25 * 1024 * 1024 },
    });
    expect(TelegramConnectorConfig.parse({ bot_token: TOKEN, api_url: 'http://127.0.0.1:8081/' }).api_url).toBe('http://127.0.0.1:8081');
  });

  it('refuses a token that is not BotFather’s shape, naming the key and not the value', () => {
    for (const bad of ['', 'abc', '123456789', 'AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw:123', '123:short']) {
      const found = problems({ bot_token: bad });
      expect(found.map((p) => p.path)).toEqual(['bot_token']);
      if (bad.length > 3) expect(found[0]!.message).not.toContain(bad);
    }
  });

  it('webhook mode needs webhook_url; polling mode refuses the webhook keys; unknown keys are refused', () => {
    expect(problems({ bot_token: TOKEN, mode: 'webhook' })).toEqual([{ path: 'webhook_url', message: expect.stringContaining('required with mode: webhook') }]);
    expect(problems({ bot_token: TOKEN, webhook_url: 'https://gw.example.com/connectors/tg/webhook', webhook_secret: 'a'.repeat(20) }).map((p) => p.path)).toEqual(['webhook_url', 'webhook_secret']);
    expect(problems({ bot_token: TOKEN, mode: 'webhook', webhook_url: 'https://gw.example.com/connectors/tg/webhook' })).toEqual([]);
    expect(problems({ bot_token: TOKEN, mode: 'push' }).map((p) => p.path)).toEqual(['mode']);
    expect(problems({ bot_token: TOKEN, polling: true }).map((p) => p.path)).toEqual(['polling']);
  });

  it('refuses a webhook secret Telegram would refuse (or a short one), without repeating it', () => {
    const base = { bot_token: TOKEN, mode: 'webhook', webhook_url: 'https://gw.example.com/connectors/tg/webhook' };
    for (const secret of ['has spaces in it, sixteen+', 'short_secret', 'ü'.repeat(20), 'x'.repeat(257)]) {
      const found = problems({ ...base, webhook_secret: secret });
      expect(found.map((p) => p.path)).toEqual(['webhook_secret']);
      expect(found[0]!.message).not.toContain(secret);
    }
    expect(problems({ ...base, webhook_secret: 'Abc_-0123456789xyz' })).toEqual([]);
  });

  it('refuses URLs with credentials, a query or another scheme, and limits out of range', () => {
    expect(problems({ bot_token: TOKEN, api_url: 'https://user:pw@api.telegram.org' }).map((p) => p.path)).toEqual(['api_url']);
    expect(problems({ bot_token: TOKEN, api_url: 'ftp://api.telegram.org' }).map((p) => p.path)).toEqual(['api_url']);
    expect(problems({ bot_token: TOKEN, mode: 'webhook', webhook_url: 'https://gw.example.com/hook?x=1' }).map((p) => p.path)).toEqual(['webhook_url']);
    for (const seconds of [0, 51]) expect(problems({ bot_token: TOKEN, poll_timeout_seconds: seconds }).map((p) => p.path)).toEqual(['poll_timeout_seconds']);
    expect(problems({ bot_token: TOKEN, attachments: { max_file_bytes: 51 * 1024 * 1024 } }).map((p) => p.path)).toEqual(['attachments.max_file_bytes']);
    expect(problems({ bot_token: TOKEN, attachments: { max_mail_bytes: 5 } }).map((p) => p.path)).toEqual(['attachments']);
  });

  it('derives a webhook secret per connector from the token: stable, of Telegram’s alphabet, not the token', () => {
    const one = webhookSecretOf(TOKEN, undefined, 'tg');
    expect(one).toBe(webhookSecretOf(TOKEN, undefined, 'tg'));
    expect(one).toMatch(/^[A-Za-z0-9_-]{16,256}$/);
    expect(one).not.toBe(webhookSecretOf(TOKEN, undefined, 'tg-2'));
    expect(one).not.toContain(TOKEN.split(':')[1]!.slice(0, 8));
    expect(webhookSecretOf(TOKEN, 'configured-secret-123', 'tg')).toBe('configured-secret-123');
  });
});
