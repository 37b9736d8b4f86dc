/**
 * The small pure parts of the e-mail connector: its settings, the OAuth2
 * credentials it logs in with, the +token of Reply-To, and reply subjects.
 */
import { describe, expect, it } from 'vitest';
import { EmailConnectorConfig } from '../../../connectors/email/config.ts';
import { imapAuth } from '../../../connectors/email/imap-auth.ts';
import { replyAddress, replyToken, tokenFromAddresses } from '../../../connectors/email/reply-token.ts';
import { replySubject } from '../../../connectors/email/smtp-sender.ts';

const base = { imap: { host: 'imap.example.test', user: 'u', password: 'p' }, smtp: { host: 'smtp.example.test' }, address: 'Support@Example.test' };

describe('settings', () => {
  it('fills the documented defaults and lower-cases the address', () => {
    const c = EmailConnectorConfig.parse(base);
    expect(c).toMatchObject({ address: 'support@example.test', after_import: 'seen', poll_seconds: 60 });
    expect(c.imap).toMatchObject({ port: 993, secure: true, mailbox: 'INBOX' });
    expect(c.smtp).toMatchObject({ port: 587, secure: false });
  });

  it('names the key of each problem', () => {
    const r = EmailConnectorConfig.safeParse({ ...base, imap: { host: 'h', port: 'x' }, after_import: 'archive', address: 'nope' });
    expect(r.success).toBe(false);
    const paths = r.error!.issues.map((i) => i.path.join('.'));
    expect(paths).toEqual(expect.arrayContaining(['imap.port', 'after_import', 'address']));
  });

  it('wants a password or OAuth2, and exactly one of access_token and token_command', () => {
    expect(EmailConnectorConfig.safeParse({ ...base, imap: { host: 'h', user: 'u' } }).error?.issues[0]?.path).toEqual(['imap', 'password']);
    const both = EmailConnectorConfig.safeParse({ ...base, imap: { host: 'h', auth: { type: 'oauth2', user: 'u', access_token: 'a', token_command: 'echo b' } } });
    expect(both.error?.issues[0]?.path).toEqual(['imap', 'auth', 'provider']);
    expect(EmailConnectorConfig.safeParse({ ...base, imap: { host: 'h', auth: { type: 'oauth2', user: 'u', access_token: 'a' } } }).success).toBe(true);
  });

  it('built-in OAuth2 wants client_id and refresh_token, a token_url for custom, a tenant only for microsoft', () => {
    const imap = (auth: Record<string, unknown>) => ({ ...base, imap: { host: 'h', auth: { type: 'oauth2', user: 'u', ...auth } } });
    const paths = (config: unknown) => EmailConnectorConfig.safeParse(config).error?.issues.map((i) => i.path.join('.')) ?? [];
    expect(paths(imap({ provider: 'google', client_id: 'c', client_secret: 's', refresh_token: 'r' }))).toEqual([]);
    expect(paths(imap({ provider: 'google' }))).toEqual(['imap.auth.client_id', 'imap.auth.refresh_token']);
    expect(paths(imap({ provider: 'custom', client_id: 'c', refresh_token: 'r' }))).toEqual(['imap.auth.token_url']);
    expect(paths(imap({ provider: 'google', client_id: 'c', refresh_token: 'r', tenant: 't' }))).toEqual(['imap.auth.tenant']);
    expect(paths(imap({ access_token: 'a', refresh_token: 'r' }))).toEqual(['imap.auth.refresh_token']);
    expect(paths(imap({ provider: 'microsoft', client_id: 'c', refresh_token: 'r', access_token: 'a' }))).toEqual(['imap.auth.provider']);
  });

  it('smtp.auth: imap shares the IMAP grant and needs one; auth and a password are not both given', () => {
    const oauth = { type: 'oauth2', user: 'u', provider: 'microsoft', client_id: 'c', refresh_token: 'r' };
    const paths = (config: unknown) => EmailConnectorConfig.safeParse(config).error?.issues.map((i) => i.path.join('.')) ?? [];
    expect(paths({ ...base, imap: { host: 'h', auth: oauth }, smtp: { host: 's', auth: 'imap' } })).toEqual([]);
    expect(paths({ ...base, smtp: { host: 's', auth: 'imap' } })).toEqual(['smtp.auth']);
    expect(paths({ ...base, imap: { host: 'h', auth: oauth }, smtp: { host: 's', user: 'u', password: 'p', auth: 'imap' } })).toEqual(['smtp.auth']);
    expect(paths({ ...base, smtp: { host: 's', auth: oauth } })).toEqual([]);
  });
});

describe('IMAP credentials', () => {
  it('a password, a given access token, or the output of token_command run at each login', async () => {
    expect(await imapAuth(EmailConnectorConfig.parse(base).imap)).toEqual({ user: 'u', pass: 'p' });
    const given = EmailConnectorConfig.parse({ ...base, imap: { host: 'h', auth: { type: 'oauth2', user: 'me@x', access_token: 'ya29.tok' } } });
    expect(await imapAuth(given.imap)).toEqual({ user: 'me@x', accessToken: 'ya29.tok' });
    const command = EmailConnectorConfig.parse({ ...base, imap: { host: 'h', auth: { type: 'oauth2', user: 'me@x', token_command: "printf ' fresh-token\\n'" } } });
    expect(await imapAuth(command.imap)).toEqual({ user: 'me@x', accessToken: 'fresh-token' });
  });

  it('a failing or silent token_command is an error with a stable code', async () => {
    const failing = EmailConnectorConfig.parse({ ...base, imap: { host: 'h', auth: { type: 'oauth2', user: 'u', token_command: 'exit 3' } } });
    await expect(imapAuth(failing.imap)).rejects.toMatchObject({ code: 'TG_EMAIL_TOKEN_COMMAND' });
    const silent = EmailConnectorConfig.parse({ ...base, imap: { host: 'h', auth: { type: 'oauth2', user: 'u', token_command: 'true' } } });
    await expect(imapAuth(silent.imap)).rejects.toThrow('token_command printed no token');
  });
});

describe('reply tokens and subjects', () => {
  it('a token is stable per thread, and read back only from the support address plus it', () => {
    const token = replyToken('<root@customer.test>');
    expect(token).toMatch(/^[a-z2-7]{12}$/);
    expect(replyToken('<root@customer.test>')).toBe(token);
    expect(replyToken('<other@customer.test>')).not.toBe(token);
    const address = replyAddress('help@example.test', token);
    expect(address).toBe(`help+${token}@example.test`);
    expect(tokenFromAddresses('help@example.test', ['someone@else.test', address.toUpperCase()])).toBe(token);
    expect(tokenFromAddresses('help@example.test', [`help+${token}@elsewhere.test`, `helpdesk+${token}@example.test`])).toBeUndefined();
  });

  it('prefixes Re: once, keeps other languages’ prefixes, and never sends an empty subject', () => {
    expect(replySubject('Broken kettle')).toBe('Re: Broken kettle');
    expect(replySubject('RE: Broken kettle')).toBe('RE: Broken kettle');
    expect(replySubject('AW: Rechnung')).toBe('AW: Rechnung');
    expect(replySubject('  ')).toBe('Re: your message');
  });
});
