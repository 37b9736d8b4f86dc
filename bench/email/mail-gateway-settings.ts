/**
 * The mailbox and the settings of a benchmark gateway that reads mail: a
 * Dovecot user of its own, and `serve`'s settings file for an e-mail
 * connector on that user's INBOX posting to a sandbox in a process of its
 * own. The e-mail backlog and the footprint benchmarks start their gateways
 * from these.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { MailServersInfo } from '../../test/support/mail-servers.ts';
import type { ChildSandbox } from '../support/child-sandbox.ts';

/** Every benchmark mailbox user's password. */
export const PASSWORD = 'bench';

/** A mailbox user of its own (nothing to clean up: the mail servers' folder goes with them). */
export function addMailUser(mail: MailServersInfo, name: string): string {
  const user = `${name}-${process.pid}-${Date.now()}@example.test`;
  writeFileSync(join(mail.usersDir, user), `${user}:{PLAIN}${PASSWORD}::::::\n`, { mode: 0o644 });
  return user;
}

/**
 * The settings file of a gateway reading `user`'s INBOX and posting to `sandbox`; its store in `dir`, named `dbName`.
 * `server` is written as given (a port of 0 for a gateway nobody calls).
 */
export function writeSettings(
  dir: string,
  sandbox: ChildSandbox,
  mail: MailServersInfo,
  user: string,
  options: { dbName?: string; server?: Record<string, unknown> } = {},
): { file: string; db: string } {
  const file = join(dir, 'threadgate.yaml');
  const db = join(dir, options.dbName ?? 'gateway.db');
  writeFileSync(
    file,
    stringify({
      platform: { url: sandbox.url, organization_id: sandbox.organizationId, token: sandbox.token },
      ...(options.server ? { server: options.server } : {}),
      store: { path: db },
      log: { level: 'warn' },
      connectors: [
        {
          name: 'mail', type: 'email', room_id: sandbox.roomId, address: user,
          imap: { host: mail.host, port: mail.imapPort, secure: false, user, password: PASSWORD },
          smtp: { host: mail.host, port: mail.smtpPort, secure: false },
        },
      ],
    }),
  );
  return { file, db };
}
