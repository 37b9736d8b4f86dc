/**
 * New OAuth2 consent reaching a running gateway without a restart, after the
 * provider revoked the refresh token in use: through `threadgate secrets set`
 * (a separate process writing the sealed value into the store) and through
 * a new value in the settings file and a reload (SIGHUP). Each time the
 * connector was unhealthy with the provider's words, heals by itself, and
 * mail flows again; no token appears in any log line or in clear in the store.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { runCliAsync } from '../../support/cli.ts';
import { startTestGateway, type TestGateway } from '../../support/gateway.ts';
import { appendRaw } from '../../support/mail-servers.ts';
import { sleep, until } from '../../support/wait.ts';
import { ARRIVES_MS } from './hard-mail-support.ts';
import { KEY, connector, expectNoSecrets, health, mail, posted, setup, type Setup } from './oauth2-support.ts';

/** Revokes the grant in use and waits until the connector says so. */
async function revokeUntilUnhealthy(s: Setup, tg: TestGateway): Promise<void> {
  s.provider.revoke(s.refreshToken);
  await sleep(2_100); // the access token in hand has expired
  s.imap.dropAll();
  await until(async () => String((await health(tg)).details.last_error).includes('invalid_grant'), ARRIVES_MS, 'unhealthy');
  expect((await health(tg)).ok).toBe(false);
}

describe('new OAuth2 consent without a restart', () => {
  it('threadgate secrets set: the sealed refresh token is used at the next attempt and mail flows again', { timeout: 90_000 }, async () => {
    const s = await setup();
    s.provider.accessTtlSeconds = 2;
    const lines: string[] = [];
    const tg = await startTestGateway({ connectors: [connector(s)], storeSettings: { encryption_key: KEY }, logLines: lines });
    await until(async () => (await health(tg)).details.connected === true, ARRIVES_MS, 'the first login');
    await revokeUntilUnhealthy(s, tg);

    const fresh = s.provider.grant(s.support);
    const r = await runCliAsync(['secrets', 'set', 'mail', 'imap.auth.refresh_token', '--config', join(tg.dir, 'threadgate.yaml')], { input: `${fresh}\n` });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('mail: imap.auth.refresh_token stored sealed');
    expect(r.stdout).not.toContain(fresh);
    const stored = JSON.stringify(await tg.gateway.store.read.state.get('mail', 'operator-secret:imap.auth.refresh_token'));
    expect(stored).toMatch(/"sealed":"v1\./);
    expect(stored).not.toContain(fresh);

    // The refresh backs off up to a minute after failures; the next attempt takes the new token.
    await until(async () => (await health(tg)).details.connected === true, 70_000, 'the connector to heal');
    expect((await health(tg)).details.oauth2).toMatchObject({ ok: true, last_error: null });
    expect(s.provider.refreshes.at(-1)).toMatchObject({ refreshToken: fresh, granted: true });
    await appendRaw(s.support, mail(1));
    await until(async () => (await posted(tg)) === 1, ARRIVES_MS, 'mail after the new consent');
    expectNoSecrets(lines, [s.refreshToken, fresh, s.provider.clientSecret, ...s.provider.issued]);
  });

  it('a new refresh token in the settings file and a reload heal it at once; the reload names what it applied', { timeout: 60_000 }, async () => {
    const s = await setup();
    s.provider.accessTtlSeconds = 2;
    const lines: string[] = [];
    const tg = await startTestGateway({ connectors: [connector(s)], logLines: lines });
    await until(async () => (await health(tg)).details.connected === true, ARRIVES_MS, 'the first login');
    await revokeUntilUnhealthy(s, tg);

    const fresh = s.provider.grant(s.support);
    const file = join(tg.dir, 'threadgate.yaml');
    const settings = parse(readFileSync(file, 'utf8'));
    // A connector key its schema refuses fails the whole reload: nothing changes.
    settings.connectors[0].imap.auth.refresh_token = '';
    writeFileSync(file, stringify(settings));
    expect(tg.gateway.reload()).toBeUndefined();
    const failed = lines.map((l) => JSON.parse(l)).find((l) => l.event === 'settings_reload_failed');
    expect(failed.problems).toEqual([{ path: 'connectors[0].imap.auth.refresh_token', message: expect.any(String) }]);
    settings.connectors[0].imap.auth.refresh_token = fresh;
    settings.connectors[0].poll_seconds = 30;
    writeFileSync(file, stringify(settings));
    const outcome = tg.gateway.reload();
    expect(outcome).toEqual({ applied: ['connectors.0.imap.auth.refresh_token'], restartNeeded: ['connectors.0.poll_seconds'] });

    const healedWithin = Date.now();
    await until(async () => (await health(tg)).details.connected === true, ARRIVES_MS, 'the connector to heal');
    expect(Date.now() - healedWithin).toBeLessThan(10_000); // no backoff left to wait
    expect(s.provider.refreshes.at(-1)).toMatchObject({ refreshToken: fresh, granted: true });
    await appendRaw(s.support, mail(2));
    await until(async () => (await posted(tg)) === 1, ARRIVES_MS, 'mail after the reload');

    // The applied value is in force now: the same file again changes nothing more.
    expect(tg.gateway.reload()).toEqual({ applied: [], restartNeeded: ['connectors.0.poll_seconds'] });
    expectNoSecrets(lines, [s.refreshToken, fresh, s.provider.clientSecret, ...s.provider.issued]);
  });
});
