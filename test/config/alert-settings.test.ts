/**
 * The `alerts:` section: absent means no alerts; each destination needs what
 * it is sent with (the webhook its whsec_ secret, the mail its SMTP server);
 * durations are read with their units; every problem names its key.
 */
import { describe, expect, it } from 'vitest';
import { formatProblem } from '../../src/config/errors.ts';
import { Settings } from '../../src/config/schema.ts';

const SECRET = `whsec_${Buffer.from('x'.repeat(32)).toString('base64')}`;
const problemsOf = (alerts: unknown): string[] =>
  (Settings.safeParse({ alerts }).error?.issues ?? []).map((i) => formatProblem({ path: i.path.map(String).join('.'), message: i.message }));

describe('alerts settings', () => {
  it('are off without the section, and take a webhook with its defaults', () => {
    expect(Settings.parse({}).alerts).toBeUndefined();
    expect(Settings.parse({ alerts: { webhook_url: 'https://ops.example.com/hook', webhook_secret: SECRET } }).alerts).toEqual({
      webhook_url: 'https://ops.example.com/hook',
      webhook_secret: SECRET,
      after: 300_000,
      every: 900_000,
      backlog_age: 900_000,
      check_every: 10_000,
    });
  });

  it('take one address or a list, and the SMTP server with its defaults', () => {
    const alerts = Settings.parse({ alerts: { email_to: 'oncall@example.com', smtp: { host: 'smtp.example.com', from: 'alerts@example.com' }, every: '1h', after: '0s' } }).alerts!;
    expect(alerts).toMatchObject({ email_to: ['oncall@example.com'], smtp: { host: 'smtp.example.com', port: 587, secure: false, from: 'alerts@example.com' }, every: 3_600_000, after: 0 });
  });

  it('name each missing or wrong key', () => {
    expect(problemsOf({})).toEqual(['alerts.webhook_url: expected webhook_url or email_to: where alerts go']);
    expect(problemsOf({ webhook_url: 'https://ops.example.com/hook' })).toEqual(['alerts.webhook_secret: expected the secret the alert webhook is signed with (whsec_…)']);
    expect(problemsOf({ email_to: ['oncall@example.com'] })).toEqual(['alerts.smtp: expected the SMTP server alert mails go through (host, port, from)']);
    expect(problemsOf({ webhook_url: 'ftp://x', webhook_secret: 'not-a-secret', every: '15', hooks: 1 })).toEqual([
      'alerts.webhook_url: expected an http(s) URL',
      expect.stringMatching(/^alerts\.webhook_secret: expected a Standard Webhooks secret/),
      'alerts.every: expected a duration such as 90s, 15m, 2h or 3d, got "15"',
      expect.stringMatching(/^alerts: .*"hooks"/),
    ]);
  });
});
