/**
 * The built-in OAuth2 tests' common ground: a support mailbox in the run's
 * Dovecot reached through a counting TCP pass-through, a token endpoint of
 * the test's own playing the provider (test/support/oauth2-provider.ts), the
 * connector entry that ties them together, and readers of the gateway's view.
 */
import { expect } from 'vitest';
import type { TestGateway } from '../../support/gateway.ts';
import { mailServers, type MailUser } from '../../support/mail-servers.ts';
import { startOAuth2Provider, type OAuth2Provider } from '../../support/oauth2-provider.ts';
import { startTcpCounter, type TcpCounter } from '../../support/tcp-counter.ts';
import { inbound, rawMail } from './hard-mail-support.ts';
import { emailConnector } from './settings.ts';

export const KEY = 'a-store-encryption-key-of-forty-characters!';

export interface Setup {
  support: MailUser;
  provider: OAuth2Provider;
  imap: TcpCounter;
  refreshToken: string;
}

export async function setup(): Promise<Setup> {
  const support = await mailServers().addUser('oauth-support');
  const provider = await startOAuth2Provider();
  const imap = await startTcpCounter(mailServers().imap);
  return { support, provider, imap, refreshToken: provider.grant(support) };
}

/** IMAP through the counting pass-through; `smtp`: replies through Dovecot's submission with the same grant. */
export function connector(s: Setup, options: { smtp?: boolean } = {}) {
  const auth = { type: 'oauth2', provider: 'custom', user: s.support.user, client_id: s.provider.clientId, client_secret: s.provider.clientSecret, refresh_token: s.refreshToken, token_url: s.provider.tokenUrl, scope: 'mail' };
  const { submission } = mailServers();
  const smtp = options.smtp ? { smtp: { host: submission.host, port: submission.port, secure: false, auth: 'imap' } } : {};
  return emailConnector(s.support, { reconnect_max_seconds: 1, ...smtp }, { port: s.imap.port, auth });
}

export const health = async (tg: TestGateway) => (await tg.call('GET', '/readyz')).body?.connectors?.mail as { ok: boolean; details: Record<string, unknown> };
export const posted = async (tg: TestGateway) => (await inbound(tg)).filter((m) => m.status === 'posted').length;
export const mail = (n: number) => rawMail({ id: `<oauth-refresh-${n}@customer.test>`, subject: `oauth ${n}`, text: `mail ${n}` });

/** No log line holds any of `secrets`. */
export function expectNoSecrets(lines: readonly string[], secrets: readonly string[]) {
  const leaks = lines.filter((line) => secrets.some((secret) => line.includes(secret)));
  expect(leaks).toEqual([]);
}
