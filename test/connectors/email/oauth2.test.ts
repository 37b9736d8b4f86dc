/**
 * OAuth2 logins against the real Dovecot: its oauth2 passdb checks each
 * access token with the token-info endpoint of the test setup. Both SASL
 * mechanisms work on the wire; imapflow (the connector's client) picks
 * OAUTHBEARER when offered, as here. The connector's token_command runs
 * again before each login, so a token refreshed outside the gateway heals a
 * connection refused for a revoked one.
 */
import { writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { ImapFlow } from 'imapflow';
import { describe, expect, it } from 'vitest';
import { until } from '../../support/wait.ts';
import { startTestGateway, type TestGateway } from '../../support/gateway.ts';
import { appendRaw, issueAccessToken, mailServers, revokeAccessToken, type MailUser } from '../../support/mail-servers.ts';
import { emailConnector } from './settings.ts';
import { tempDir } from '../../support/temp-dir.ts';

/** Generous: a refused login costs Dovecot's auth_failure_delay (2 s) on top of the reconnect backoff. */
const ARRIVES_MS = 15_000;

function rawMail(n: number, to: string): string {
  return [
    `From: Customer <c${n}@customer.test>`, `To: ${to}`, `Subject: oauth case ${n}`, `Message-ID: <oauth-${n}.${to}>`,
    'Date: Sun, 22 Nov 2026 10:00:00 +0000', 'Content-Type: text/plain; charset=utf-8', '', `text ${n}`, '',
  ].join('\r\n');
}

/** An imapflow login with an access token, opening INBOX: the SASL mechanism it used, or the error. */
async function tokenLogin(user: string, accessToken: string): Promise<{ mechanisms?: string[]; error?: { authenticationFailed?: boolean; response?: string } }> {
  const { host, port } = mailServers().imap;
  const client = new ImapFlow({ host, port, secure: false, auth: { user, accessToken }, logger: false });
  client.on('error', () => undefined);
  try {
    await client.connect();
    // imapflow marks the AUTH= capability it logged in with (an untyped field).
    const used = (client as unknown as { authCapabilities: Map<string, boolean> }).authCapabilities;
    const mechanisms = [...used.keys()].filter((m) => used.get(m) === true);
    await client.mailboxOpen('INBOX', { readOnly: true });
    await client.logout();
    return { mechanisms };
  } catch (err) {
    client.close();
    return { error: err as { authenticationFailed?: boolean; response?: string } };
  }
}

/** `a AUTHENTICATE <mechanism> <initial response>` on a raw connection; answers a `+` error challenge
 *  as the mechanism says (XOAUTH2: empty line; OAUTHBEARER: ^A). Returns the tagged answer. */
function saslLogin(mechanism: 'XOAUTH2' | 'OAUTHBEARER', user: string, token: string): Promise<string> {
  const payload = mechanism === 'XOAUTH2' ? `user=${user}\x01auth=Bearer ${token}\x01\x01` : `n,a=${user},\x01auth=Bearer ${token}\x01\x01`;
  const { host, port } = mailServers().imap;
  return new Promise((resolve, reject) => {
    const socket = connect(port, host);
    let text = '';
    let sent = false;
    socket.setTimeout(10_000, () => socket.destroy(new Error(`no answer to AUTHENTICATE ${mechanism}: ${text}`)));
    socket.on('error', reject);
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
      if (!sent && text.includes('\r\n')) {
        sent = true;
        socket.write(`a AUTHENTICATE ${mechanism} ${Buffer.from(payload).toString('base64')}\r\n`);
      } else if (/^\+ /m.test(text) && !text.includes('\r\na ')) {
        text = text.replace(/^\+ .*\r\n/m, '');
        socket.write(mechanism === 'XOAUTH2' ? '\r\n' : 'AQ==\r\n');
      }
      const tagged = /^a (OK|NO|BAD)\b.*$/m.exec(text);
      if (tagged) {
        socket.end('z LOGOUT\r\n');
        resolve(tagged[0]);
      }
    });
  });
}

describe('OAuth2 logins to the test Dovecot', () => {
  it('imapflow logs in with a valid access token (over OAUTHBEARER), not with a revoked, expired or foreign one', async () => {
    const servers = mailServers();
    const support = await servers.addUser('oauth');
    const other = await servers.addUser('oauth-other');
    const token = await issueAccessToken(support);

    const ok = await tokenLogin(support.user, token);
    expect(ok.error).toBeUndefined();
    expect(ok.mechanisms).toEqual(['AUTH=OAUTHBEARER']);

    await revokeAccessToken(token);
    const expiredToken = await issueAccessToken(support, { expiresInSeconds: 0 });
    // Together: each refusal takes Dovecot's auth_failure_delay (2 s).
    const [revoked, expired, foreign] = await Promise.all([
      tokenLogin(support.user, token),
      tokenLogin(support.user, expiredToken),
      tokenLogin(other.user, await issueAccessToken(support)), // a token of another user
    ]);
    for (const refused of [revoked, expired, foreign]) {
      expect(refused.error?.authenticationFailed).toBe(true);
      expect(refused.error?.response).toMatch(/AUTHENTICATIONFAILED|Authentication failed/i);
    }
  });

  it('SASL XOAUTH2 and OAUTHBEARER both accept a valid token and refuse a revoked one; passwords still work', async () => {
    const support = await mailServers().addUser('sasl');
    const token = await issueAccessToken(support);
    expect(await saslLogin('XOAUTH2', support.user, token)).toMatch(/^a OK /);
    expect(await saslLogin('OAUTHBEARER', support.user, token)).toMatch(/^a OK /);
    await revokeAccessToken(token);
    const refused = await Promise.all([saslLogin('XOAUTH2', support.user, token), saslLogin('OAUTHBEARER', support.user, token)]);
    expect(refused).toEqual([expect.stringMatching(/^a NO \[AUTHENTICATIONFAILED\]/), expect.stringMatching(/^a NO \[AUTHENTICATIONFAILED\]/)]);
    await appendRaw(support, rawMail(0, support.address)); // a password login, as every other test's
  });
});

describe('the e-mail connector with OAuth2', () => {
  async function gatewayFor(support: MailUser, tokenFile: string): Promise<TestGateway> {
    return startTestGateway({
      connectors: [emailConnector(support, { reconnect_max_seconds: 1 }, { auth: { type: 'oauth2', user: support.user, token_command: `cat '${tokenFile}'` } })],
    });
  }

  const posted = async (tg: TestGateway) =>
    ((await tg.gateway.store.read.sql.all(`select external_id as id from inbound_messages where connector = 'mail' and status = 'posted'`)) as { id: string }[]).map((m) => m.id);
  const health = async (tg: TestGateway) => (await tg.call('GET', '/readyz')).body.connectors.mail as { ok: boolean; details: { connected: boolean; last_error: string | null } };

  it('logs in with the token token_command prints and posts the mail of the inbox', async () => {
    const support = await mailServers().addUser('oauth-gw');
    const tokenFile = join(tempDir(), 'token');
    writeFileSync(tokenFile, `${await issueAccessToken(support)}\n`);
    await appendRaw(support, rawMail(1, support.address));

    const tg = await gatewayFor(support, tokenFile);
    await until(async () => (await posted(tg)).length === 1, ARRIVES_MS, 'the mail posted');
    expect((await posted(tg))).toEqual([`<oauth-1.${support.address}>`]);
    expect(await health(tg)).toMatchObject({ ok: true, details: { connected: true, last_error: null } });
  });

  it('a revoked token leaves it disconnected with an auth error; a new token in the file connects it on the next reconnect', async () => {
    const support = await mailServers().addUser('oauth-renew');
    const tokenFile = join(tempDir(), 'token');
    const old = await issueAccessToken(support);
    await revokeAccessToken(old);
    writeFileSync(tokenFile, `${old}\n`);
    await appendRaw(support, rawMail(2, support.address));

    const tg = await gatewayFor(support, tokenFile);
    await until(async () => typeof (await health(tg)).details.last_error === 'string', ARRIVES_MS, 'a login error');
    const refused = await health(tg);
    expect(refused.ok).toBe(false);
    expect(refused.details.connected).toBe(false);
    // imapflow's message for a refused AUTHENTICATE is "Command failed" (the watcher keeps only the message).
    expect(String(refused.details.last_error)).toMatch(/auth|login|credentials|command failed/i);
    expect(String(refused.details.last_error)).not.toMatch(/token_command/); // the command ran fine
    expect(JSON.stringify(refused)).not.toContain(old);
    expect((await posted(tg))).toEqual([]);

    writeFileSync(tokenFile, `${await issueAccessToken(support)}\n`);
    await until(async () => (await posted(tg)).length === 1, ARRIVES_MS, 'the mail posted after the new token');
    expect((await posted(tg))).toEqual([`<oauth-2.${support.address}>`]);
    expect((await health(tg)).details.connected).toBe(true);
  });
});
