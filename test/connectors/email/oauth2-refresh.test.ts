/**
 * The e-mail connector's built-in OAuth2 against the run's Dovecot (its
 * oauth2 passdb checks each token) and a token endpoint of the test's own
 * playing the provider: short-lived access tokens refreshed at each login
 * after they expired; a refresh token the provider rotates kept, sealed, in
 * the store, so a restart logs in with it; a revoked one turning the
 * connector unhealthy with the provider's words, and healing by itself when
 * consent is given again; and no token or secret in any log line.
 */
import { describe, expect, it } from 'vitest';
import { startTestGateway } from '../../support/gateway.ts';
import { appendRaw, mailServers, revokeAccessToken, sendMail, waitForMail } from '../../support/mail-servers.ts';
import { sleep, until } from '../../support/wait.ts';
import { ARRIVES_MS } from './hard-mail-support.ts';
import { KEY, connector, expectNoSecrets, health, mail, posted, setup } from './oauth2-support.ts';

describe('built-in OAuth2 for the mailbox', () => {
  it('refreshes an expired access token at each login, so mail keeps coming across several expiries', { timeout: 60_000 }, async () => {
    const s = await setup();
    s.provider.accessTtlSeconds = 2;
    const lines: string[] = [];
    const tg = await startTestGateway({ connectors: [connector(s)], logLines: lines });
    await until(async () => (await health(tg)).details.connected === true, ARRIVES_MS, 'the first login');
    for (let n = 1; n <= 3; n++) {
      await appendRaw(s.support, mail(n));
      await until(async () => (await posted(tg)) === n, ARRIVES_MS, `mail ${n} posted`);
      await sleep(2_100); // the token in hand has expired
      s.imap.dropAll(); // the server drops the session: the next login needs a fresh token
      await until(async () => (await health(tg)).details.connected === true && s.imap.open === 1, ARRIVES_MS, `login ${n + 1}`);
    }
    expect(s.provider.refreshes.length).toBeGreaterThanOrEqual(4);
    expect(s.provider.refreshes.every((r) => r.granted && r.refreshToken === s.refreshToken && r.scope === 'mail')).toBe(true);
    expect(new Set(s.provider.issued).size).toBe(s.provider.issued.length);
    expect((await health(tg)).details.oauth2).toMatchObject({ ok: true, last_error: null });
    expectNoSecrets(lines, [s.refreshToken, s.provider.clientSecret, ...s.provider.issued]);
  });

  it('keeps a rotated refresh token sealed in the store, and a restart logs in with it', { timeout: 60_000 }, async () => {
    const s = await setup();
    s.provider.rotate = true; // and the token used is refused from then on
    const lines: string[] = [];
    const first = await startTestGateway({ connectors: [connector(s)], storeSettings: { encryption_key: KEY }, logLines: lines });
    await until(async () => (await health(first)).details.connected === true, ARRIVES_MS, 'the first login');
    const rotated = s.provider.refreshes.length;
    expect(rotated).toBe(1);
    const [key, ...more] = await first.gateway.store.read.state.keys('mail', 'oauth2:refresh-token:', 10);
    expect(more).toEqual([]);
    const stored = JSON.stringify(await first.gateway.store.read.state.get('mail', key!));
    expect(stored).toMatch(/"sealed":"v1\./);
    await first.gateway.close();

    // The configured token was used up by the first refresh: only the stored, rotated one logs in now.
    const again = await startTestGateway({ connectors: [connector(s)], storeSettings: { encryption_key: KEY }, dir: first.dir, sandbox: first.sandbox, logLines: lines });
    await until(async () => (await health(again)).details.connected === true, ARRIVES_MS, 'the login after the restart');
    expect(s.provider.refreshes.slice(rotated).map((r) => r.granted)).toEqual([true]);
    expect(s.provider.refreshes[1]!.refreshToken).not.toBe(s.refreshToken);
    expect(stored).not.toContain(s.provider.refreshes[1]!.refreshToken);
    expectNoSecrets(lines, [s.refreshToken, ...s.provider.refreshes.map((r) => r.refreshToken), s.provider.clientSecret, ...s.provider.issued]);
  });

  it('a revoked refresh token makes the connector unhealthy with the provider\'s words; consent given again heals it', { timeout: 60_000 }, async () => {
    const s = await setup();
    s.provider.accessTtlSeconds = 2;
    const tg = await startTestGateway({ connectors: [connector(s)] });
    await until(async () => (await health(tg)).details.connected === true, ARRIVES_MS, 'the first login');
    s.provider.revoke(s.refreshToken);
    await sleep(2_100);
    s.imap.dropAll();
    await until(async () => (await health(tg)).ok === false && String((await health(tg)).details.last_error).includes('invalid_grant'), ARRIVES_MS, 'unhealthy');
    const sick = await health(tg);
    expect(sick.details.last_error).toContain('refused the refresh: invalid_grant: Token has been expired or revoked.');
    expect(sick.details.oauth2).toMatchObject({ ok: false });
    expect((await tg.call('GET', '/readyz?strict=1')).status).toBe(503);

    s.provider.restore(s.refreshToken);
    await until(async () => (await health(tg)).details.connected === true, 30_000, 'the connector to heal by itself');
    expect((await health(tg)).details.oauth2).toMatchObject({ ok: true, last_error: null });
    await appendRaw(s.support, mail(9));
    await until(async () => (await posted(tg)) === 1, ARRIVES_MS, 'mail after healing');
  });

  it('replies go out through SMTP submission with the same grant; a token the server refuses is renewed once', { timeout: 60_000 }, async () => {
    const s = await setup();
    const customer = await mailServers().addUser('oauth-customer', 'customer.test');
    const lines: string[] = [];
    const tg = await startTestGateway({ connectors: [connector(s, { smtp: true })], logLines: lines });
    await until(async () => (await health(tg)).details.connected === true, ARRIVES_MS, 'the first login');
    await sendMail({ from: customer.address, to: s.support.address, subject: 'Token question', text: 'Hello?\n' });
    await until(async () => (await posted(tg)) === 1, ARRIVES_MS, 'the mail posted');
    const chatId = ((await tg.gateway.store.read.sql.get(`select chat_id as "chatId" from threads where connector = 'mail'`)) as { chatId: string }).chatId;
    // The token in hand is withdrawn at the server: the first AUTH is refused, a renewed token goes through.
    for (const issued of s.provider.issued) await revokeAccessToken(issued);
    const refreshesBefore = s.provider.refreshes.length;
    await tg.sandbox.call('POST', `/_sandbox/chats/${chatId}/agent_messages`, { text: 'Answered over XOAUTH2.' });
    const [reply] = await waitForMail(customer, 1, ARRIVES_MS);
    expect(reply!.subject).toBe('Re: Token question');
    expect(reply!.headers.received?.some((r) => r.includes('with ESMTPA'))).toBe(true);
    expect(s.provider.refreshes.length).toBe(refreshesBefore + 1);
    expectNoSecrets(lines, [s.refreshToken, s.provider.clientSecret, ...s.provider.issued]);
  });
});
