/**
 * The e-mail connector's settings for a user of the run's Dovecot and
 * OpenSMTPD (test/support/mail-servers.ts): IMAP without TLS, logging in with
 * the user's password, SMTP without TLS, the user's address, a poll every 5 s.
 */
import { mailServers, type MailUser } from '../../support/mail-servers.ts';

/**
 * The connector's own keys (no name or type), as EmailConnectorConfig reads
 * them. `extra` is merged over the top-level keys, `imapExtra` over the IMAP
 * ones; an `auth` there (OAuth2) logs in instead of the password.
 */
export function emailSettings(support: MailUser, extra: Record<string, unknown> = {}, imapExtra: Record<string, unknown> = {}): Record<string, unknown> {
  const servers = mailServers();
  const login = 'auth' in imapExtra ? {} : { user: support.user, password: support.password };
  return {
    address: support.address,
    poll_seconds: 5,
    imap: { host: servers.imap.host, port: servers.imap.port, secure: false, ...login, ...imapExtra },
    smtp: { host: servers.smtp.host, port: servers.smtp.port, secure: false },
    ...extra,
  };
}

/** The gateway's `connectors:` entry of an e-mail connector named `mail` over `support`'s mailbox (see emailSettings). */
export function emailConnector(support: MailUser, extra: Record<string, unknown> = {}, imapExtra: Record<string, unknown> = {}): Record<string, unknown> {
  return { name: 'mail', type: 'email', ...emailSettings(support, extra, imapExtra) };
}
