/**
 * The run's real mail servers (started once by ./mail-global-setup.ts) as
 * test files see them: a fresh mailbox user per test, SMTP sending through
 * OpenSMTPD (which delivers to Dovecot over LMTP), IMAP APPEND and fetch.
 * `submission` is Dovecot's SMTP submission: AUTH first (PLAIN/LOGIN with the
 * user's password, XOAUTH2/OAUTHBEARER with an access token), then it relays
 * to OpenSMTPD, so the mail is delivered as if sent with sendMail.
 *
 *   const mail = mailServers();
 *   const support = await mail.addUser('support');           // support-3f9a…@example.test
 *   await sendMail({ from: 'ann@customer.test', to: support.address, subject: 'Hi', text: 'Hello' });
 *   const [first] = await waitForMail(support, 1);
 *
 * OAuth2: `issueAccessToken(user)` gives a token Dovecot accepts for that
 * user over SASL XOAUTH2 and OAUTHBEARER, in IMAP and submission (imapflow:
 * `auth: { user, accessToken }`, which picks OAUTHBEARER here; nodemailer:
 * `auth: { type: 'OAuth2', user, accessToken }`, XOAUTH2) until it expires or
 * `revokeAccessToken(token)`.
 *
 * restartDovecot() restarts the ONE Dovecot every test file shares: every
 * file's IMAP connections drop while it restarts (the helpers here retry once,
 * waitForMail until its deadline; the connector reconnects). Use it only in
 * tests that tolerate that, and expect the same of connections of your own.
 */
import { randomBytes } from 'node:crypto';
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ImapFlow } from 'imapflow';
import nodemailer from 'nodemailer';
import { inject, onTestFinished } from 'vitest';
import { toFetched, type FetchedMail } from './fetched-mail.ts';

export type { FetchedMail } from './fetched-mail.ts';

export type MailDomain = 'example.test' | 'customer.test';

/** What ./mail-global-setup.ts provides to every test file. */
export interface MailServersInfo {
  host: string;
  imapPort: number;
  smtpPort: number;
  lmtpPort: number;
  /** Dovecot's submission: AUTH required, relays to smtpPort. */
  submissionPort: number;
  /** One Dovecot passwd-file per user, named by its address. */
  usersDir: string;
  /** `POST ${controlUrl}/restart-dovecot` restarts Dovecot, answering once logins work;
   *  `POST /tokens` and `DELETE /tokens/<token>` register and revoke OAuth2 access tokens. */
  controlUrl: string;
  versions: { dovecot: string; smtpd: string };
}

declare module 'vitest' {
  export interface ProvidedContext {
    mailServers: MailServersInfo;
  }
}

export interface MailUser {
  address: string;
  /** The IMAP login (the full address). */
  user: string;
  password: string;
}

export interface Endpoint {
  host: string;
  port: number;
}

export interface MailServers {
  imap: Endpoint;
  smtp: Endpoint;
  lmtp: Endpoint;
  /** SMTP submission (no TLS): AUTH PLAIN, LOGIN, XOAUTH2 or OAUTHBEARER, then mail as with `smtp`. */
  submission: Endpoint;
  /** A new mailbox user `<localPart>-<random>@<domain>`, able to log in at once. */
  addUser(localPart?: string, domain?: MailDomain): Promise<MailUser>;
}

export interface OutgoingMail {
  from: string;
  to: string | string[];
  subject?: string;
  text?: string;
  headers?: Record<string, string>;
  /** A complete RFC 5322 message sent as is; `from`/`to` are then only the envelope. */
  raw?: Buffer | string;
}

/** How long waitForMail waits by default: local delivery takes milliseconds. */
export const WAIT_FOR_MAIL_MS = 5_000;
const POLL_MS = 50;
/** How long a helper waits for Dovecot to come back before its one retry. */
const RECONNECT_WAIT_MS = 10_000;
const CONNECTION_CODES = new Set(['NoConnection', 'EConnectionClosed', 'ClosedAfterConnectText', 'ECONNRESET', 'ECONNREFUSED', 'EPIPE']);

function info(): MailServersInfo {
  const provided = inject('mailServers') as MailServersInfo | undefined;
  if (!provided) throw new Error('mail-servers: no servers provided; is test/support/mail-global-setup.ts in vitest.config.ts test.globalSetup?');
  return provided;
}

export function mailServers(): MailServers {
  const { host, imapPort, smtpPort, lmtpPort, submissionPort, usersDir } = info();
  return {
    imap: { host, port: imapPort },
    smtp: { host, port: smtpPort },
    lmtp: { host, port: lmtpPort },
    submission: { host, port: submissionPort },
    async addUser(localPart = 'user', domain = 'example.test') {
      if (!/^[a-z0-9._-]+$/i.test(localPart)) throw new Error(`addUser: unusable local part ${JSON.stringify(localPart)}`);
      const address = `${localPart}-${randomBytes(5).toString('hex')}@${domain}`.toLowerCase();
      const password = randomBytes(9).toString('base64url');
      // Dovecot looks the user up in the file named by the login; rename makes it
      // appear whole. Readable by all: Dovecot's auth process runs as `dovecot`.
      const file = join(usersDir, address);
      await writeFile(`${file}.tmp`, `${address}:{PLAIN}${password}::::::\n`, { mode: 0o644 });
      await rename(`${file}.tmp`, file);
      return { address, user: address, password };
    },
  };
}

/** An IMAP connection as `user`, logged out when the test finishes. */
export async function openImap(user: MailUser, options: { disableAutoIdle?: boolean } = {}): Promise<ImapFlow> {
  const client = newClient(user, options);
  onTestFinished(async () => {
    await client.logout().catch(() => client.close());
  });
  await client.connect();
  return client;
}

function newClient(user: MailUser, options: { disableAutoIdle?: boolean } = {}): ImapFlow {
  const { host, imapPort } = info();
  const client = new ImapFlow({ host, port: imapPort, secure: false, auth: { user: user.user, pass: user.password }, logger: false, ...options });
  client.on('error', () => undefined); // a dropped connection also rejects the pending command
  return client;
}

export function isConnectionDrop(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && CONNECTION_CODES.has(code);
}

/**
 * "Mailbox doesn't exist": imapflow's marks (SELECT/EXAMINE and STATUS respectively), or Dovecot's words. imapflow
 * marks a failed SELECT only when a LIST run after it finds no mailbox, so a mailbox created between the two (the
 * gateway making its after_import folder while a test polls it) fails with neither mark: CI saw that once.
 */
const isNonexistent = (err: unknown) => {
  const e = err as { mailboxMissing?: unknown; code?: unknown; responseStatus?: unknown; responseText?: unknown } | null;
  if (e?.mailboxMissing === true || e?.code === 'NotFound') return true;
  return e?.responseStatus === 'NO' && typeof e.responseText === 'string' && e.responseText.startsWith("Mailbox doesn't exist");
};

/** Runs `fn` on a fresh connection; on a dropped connection waits for Dovecot and tries once more. */
async function withImap<T>(user: MailUser, fn: (client: ImapFlow) => Promise<T>): Promise<T> {
  const attempt = async () => {
    const client = newClient(user);
    try {
      await client.connect();
      const result = await fn(client);
      await client.logout().catch(() => undefined); // the result is in hand
      return result;
    } finally {
      client.close();
    }
  };
  try {
    return await attempt();
  } catch (err) {
    if (!isConnectionDrop(err)) throw err;
    await imapBack(user);
    return attempt();
  }
}

async function imapBack(user: MailUser): Promise<void> {
  const deadline = Date.now() + RECONNECT_WAIT_MS;
  for (;;) {
    const client = newClient(user);
    try {
      await client.connect();
      await client.logout();
      return;
    } catch (err) {
      if (!isConnectionDrop(err) || Date.now() > deadline) throw err;
      await sleep(POLL_MS);
    } finally {
      client.close();
    }
  }
}

/** Sends over SMTP to OpenSMTPD; mail for example.test/customer.test lands in Dovecot. */
export async function sendMail(mail: OutgoingMail): Promise<{ messageId: string; response: string }> {
  const { host, smtpPort } = info();
  const transport = nodemailer.createTransport({ host, port: smtpPort, secure: false, ignoreTLS: true });
  try {
    const sent = mail.raw === undefined
      ? await transport.sendMail({ from: mail.from, to: mail.to, subject: mail.subject, text: mail.text, headers: mail.headers })
      : await transport.sendMail({ envelope: { from: mail.from, to: mail.to }, raw: mail.raw });
    return { messageId: sent.messageId, response: sent.response };
  } finally {
    transport.close();
  }
}

/** IMAP APPEND of a raw message (the mailbox is created when missing); returns its UID. */
export async function appendRaw(user: MailUser, raw: Buffer | string, mailbox = 'INBOX'): Promise<{ uid: number | undefined }> {
  return withImap(user, async (client) => {
    if (mailbox.toUpperCase() !== 'INBOX') await client.mailboxCreate(mailbox).catch(() => undefined);
    const appended = await client.append(mailbox, raw);
    if (!appended) throw new Error(`appendRaw: APPEND to ${mailbox} failed for ${user.address}`);
    return { uid: appended.uid };
  });
}

/** Every message in `mailbox`, oldest first (none when the mailbox does not exist). */
export async function fetchAll(user: MailUser, mailbox = 'INBOX'): Promise<FetchedMail[]> {
  return withImap(user, async (client) => {
    const opened = await client.mailboxOpen(mailbox, { readOnly: true }).catch((err: unknown) => {
      if (isNonexistent(err)) return { exists: 0 };
      throw err;
    });
    if (opened.exists === 0) return [];
    const messages = await client.fetchAll('1:*', { uid: true, flags: true, source: true });
    return messages.map((m) => toFetched(m.uid, m.source ?? Buffer.alloc(0), m.flags));
  });
}

/** Waits until `mailbox` holds at least `count` messages (reconnecting across restarts), then returns them all. */
export async function waitForMail(user: MailUser, count: number, timeoutMs = WAIT_FOR_MAIL_MS, mailbox = 'INBOX'): Promise<FetchedMail[]> {
  const deadline = Date.now() + timeoutMs;
  let seen = 0;
  while (seen < count && Date.now() < deadline) {
    try {
      await withImap(user, async (client) => {
        do {
          const status = await client.status(mailbox, { messages: true }).catch((err: unknown) => {
            if (isNonexistent(err)) return { messages: 0 }; // not created yet
            throw err;
          });
          seen = status ? (status.messages ?? 0) : 0;
          if (seen < count) await sleep(POLL_MS);
        } while (seen < count && Date.now() < deadline);
      });
    } catch (err) {
      if (!isConnectionDrop(err)) throw err;
    }
  }
  if (seen < count) throw new Error(`waitForMail: ${user.address} has ${seen} of ${count} messages in ${mailbox} after ${timeoutMs} ms`);
  return fetchAll(user, mailbox);
}

/**
 * Restarts the shared Dovecot in place (same ports, users and mail) and
 * returns once it accepts logins (~50 ms). It is killed, not shut down: every
 * open IMAP connection of every test file drops without a BYE. Mail that
 * OpenSMTPD could not hand over meanwhile is retried at once after.
 */
export async function restartDovecot(): Promise<void> {
  const response = await fetch(`${info().controlUrl}/restart-dovecot`, { method: 'POST' });
  if (!response.ok) throw new Error(`restartDovecot: ${response.status} ${await response.text()}`);
}

/** A fresh random OAuth2 access token for `user`, valid for `expiresInSeconds` (an hour by default). */
export async function issueAccessToken(user: MailUser, options: { expiresInSeconds?: number } = {}): Promise<string> {
  const response = await fetch(`${info().controlUrl}/tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ user: user.user, expiresInSeconds: options.expiresInSeconds ?? 3_600 }),
  });
  if (response.status !== 201) throw new Error(`issueAccessToken: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { token: string }).token;
}

/** Makes `token` unknown to Dovecot's token check: the next login with it fails. */
export async function revokeAccessToken(token: string): Promise<void> {
  const response = await fetch(`${info().controlUrl}/tokens/${encodeURIComponent(token)}`, { method: 'DELETE' });
  if (response.status !== 204) throw new Error(`revokeAccessToken: ${response.status} ${await response.text()}`);
}
