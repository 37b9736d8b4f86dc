/**
 * The real mail servers the e-mail connector's tests rely on: SMTP delivery
 * through OpenSMTPD into Dovecot, IMAP APPEND, IDLE notices, a Dovecot
 * restart that keeps users and mail, and SMTP submission with a password or
 * an OAuth2 access token.
 */
import { connect } from 'node:net';
import nodemailer from 'nodemailer';
import { describe, expect, it } from 'vitest';
import {
  appendRaw, fetchAll, issueAccessToken, mailServers, openImap, restartDovecot, revokeAccessToken, sendMail, WAIT_FOR_MAIL_MS, waitForMail, type MailUser,
} from './mail-servers.ts';

/** An IDLE client hears of new mail about as fast as LMTP stores it. */
const IDLE_NOTICE_MS = 3_000;
/** A restart of the test Dovecot takes well under a second. */
const RESTART_MS = 3_000;

const rawMail = (subject: string) =>
  [
    'From: Ann Customer <ann@customer.test>',
    'To: support@example.test',
    `Subject: ${subject}`,
    'Message-ID: <append-1@customer.test>',
    'Date: Mon, 1 Jan 2024 10:00:00 +0000',
    '',
    'Appended body.',
    '',
  ].join('\r\n');

describe('mail servers for the tests', () => {
  it('delivers mail sent over SMTP to a just-added user of example.test into its INBOX', async () => {
    // Guards: the SMTP → LMTP → Dovecot route (virtual table, rcpt-to) losing
    // mail, or a new user's passwd-file not being seen at once.
    const mail = mailServers();
    const user = await mail.addUser('support');
    expect(user.address).toMatch(/^support-[0-9a-f]+@example\.test$/);

    await sendMail({ from: 'ann@customer.test', to: user.address, subject: 'Order 42', text: 'Where is it?', headers: { 'X-Test': 'smtp' } });

    const [delivered] = await waitForMail(user, 1);
    expect(delivered?.subject).toBe('Order 42');
    expect(delivered?.headers['x-test']).toEqual(['smtp']);
    expect(delivered?.headers['delivered-to']).toContain(user.address);
    expect(delivered?.raw.toString()).toContain('Where is it?');
  });

  it('accepts any local part of customer.test, raw SMTP and IMAP APPEND byte for byte', async () => {
    // Guards: the second domain missing from smtpd's tables; raw messages
    // being altered on the way (the connector reads them back byte for byte).
    const mail = mailServers();
    const user = await mail.addUser('ann', 'customer.test');
    const raw = rawMail('Appended');

    const { uid } = await appendRaw(user, raw);
    await appendRaw(user, rawMail('Sent copy'), 'Sent');
    await sendMail({ from: 'agent@example.test', to: user.address, raw: rawMail('Raw over SMTP') });

    const inbox = await waitForMail(user, 2);
    expect(inbox[0]?.uid).toBe(uid);
    expect(inbox[0]?.raw.toString()).toBe(raw);
    expect(inbox[1]?.subject).toBe('Raw over SMTP');
    expect(inbox[1]?.raw.toString()).toContain(rawMail('Raw over SMTP'));
    expect((await fetchAll(user, 'Sent')).map((m) => m.subject)).toEqual(['Sent copy']);
    expect(await fetchAll(user, 'Nonexistent')).toEqual([]);
  });

  it('notifies an IDLE connection of new mail with an exists event', async () => {
    // Guards: Dovecot not telling an IDLE client about LMTP deliveries, which
    // would leave the connector waiting for its poll safety net.
    const mail = mailServers();
    const user = await mail.addUser('idle');
    const client = await openImap(user, { disableAutoIdle: true });
    await client.mailboxOpen('INBOX');
    const notified = new Promise<number>((resolve) => client.on('exists', (event: { count: number }) => resolve(event.count)));
    void client.idle().catch(() => undefined);
    await expect.poll(() => client.idling, { timeout: IDLE_NOTICE_MS }).toBe(true);

    const sentAt = Date.now();
    await sendMail({ from: 'ann@customer.test', to: user.address, subject: 'New', text: 'Ping' });

    await expect(withTimeout(notified, IDLE_NOTICE_MS)).resolves.toBe(1);
    expect(Date.now() - sentAt).toBeLessThan(IDLE_NOTICE_MS);
  });

  it('restarts Dovecot in place: connections drop, helpers reconnect, users and mail stay', async () => {
    // Guards: a restart losing mail or users (the connector's reconnect tests
    // would then fail for the wrong reason), returning before logins work, or
    // helpers of other test files failing on the dropped connection.
    const mail = mailServers();
    const user = await mail.addUser('restart');
    await appendRaw(user, rawMail('Before restart'));
    const client = await openImap(user);
    const dropped = new Promise<void>((resolve) => client.on('close', () => resolve()));
    const waiting = waitForMail(user, 2, RESTART_MS + WAIT_FOR_MAIL_MS);

    const started = Date.now();
    await restartDovecot();
    expect(Date.now() - started).toBeLessThan(RESTART_MS);
    await expect(withTimeout(dropped, RESTART_MS)).resolves.toBeUndefined();

    await sendMail({ from: 'ann@customer.test', to: user.address, subject: 'After restart', text: 'Still here' });
    expect((await waiting).map((m) => m.subject)).toEqual(['Before restart', 'After restart']);
  });
});

describe('SMTP submission of the test Dovecot', () => {
  it('takes mail after an XOAUTH2 login with an issued token and delivers it through OpenSMTPD', async () => {
    // Guards: submission not asking the oauth2 passdb (tokens working for IMAP
    // only), or its relay to OpenSMTPD losing the mail on the way to LMTP.
    const mail = mailServers();
    const sender = await mail.addUser('sender');
    const recipient = await mail.addUser('recipient', 'customer.test');
    const accessToken = await issueAccessToken(sender);

    const sent = await submit({ type: 'OAuth2', user: sender.user, accessToken }, sender, recipient.address, 'Over XOAUTH2');
    expect(sent.response).toMatch(/^250 /);

    const [delivered] = await waitForMail(recipient, 1);
    expect(delivered?.subject).toBe('Over XOAUTH2');
    expect(delivered?.headers.from).toEqual([sender.address]);
    // Dovecot's own Received line: the mail came through submission, authenticated (ESMTPA, RFC 3848).
    expect(delivered?.headers.received?.join('\n')).toMatch(/ by submission\.example\.test with ESMTPA id /);
  });

  it('offers the password and token mechanisms and takes OAUTHBEARER too', async () => {
    // Guards: auth_mechanisms losing one of them for SMTP (nodemailer speaks
    // XOAUTH2 only, so OAUTHBEARER is tried on the wire).
    const sender = await mailServers().addUser('bearer');
    const token = await issueAccessToken(sender);
    const bearer = Buffer.from(`n,a=${sender.user},\x01auth=Bearer ${token}\x01\x01`).toString('base64');

    const [greeting, ehlo, auth] = await smtpDialogue(['EHLO client.test', `AUTH OAUTHBEARER ${bearer}`]);
    expect(greeting).toMatch(/^220 submission\.example\.test /);
    expect(ehlo).toMatch(/^250-AUTH PLAIN LOGIN XOAUTH2 OAUTHBEARER\r$/m);
    expect(auth).toMatch(/^235 /);
  });

  it('refuses a revoked or never issued token with 535, and mail without AUTH with 530', async () => {
    // Guards: the relay taking mail without a valid login, i.e. submission
    // turning into an open relay, or a revoked token still sending.
    const mail = mailServers();
    const sender = await mail.addUser('revoked');
    const recipient = await mail.addUser('nothing');
    const revoked = await issueAccessToken(sender);
    await revokeAccessToken(revoked);

    // Together: each refusal takes Dovecot's auth_failure_delay (2 s), twice as
    // nodemailer retries XOAUTH2 once (with the same token: it cannot refresh it).
    const refused = await Promise.all([
      submit({ type: 'OAuth2', user: sender.user, accessToken: revoked }, sender, recipient.address, 'Revoked').catch((err: unknown) => err),
      submit({ type: 'OAuth2', user: sender.user, accessToken: 'tg-never-issued' }, sender, recipient.address, 'Unknown').catch((err: unknown) => err),
      submit(undefined, sender, recipient.address, 'No AUTH').catch((err: unknown) => err),
    ]);
    expect(refused).toEqual([
      expect.objectContaining({ code: 'EAUTH', responseCode: 535, response: expect.stringMatching(/^535 5\.7\.8 Authentication failed/) }),
      expect.objectContaining({ code: 'EAUTH', responseCode: 535 }),
      expect.objectContaining({ code: 'EENVELOPE', responseCode: 530, response: expect.stringMatching(/^530 5\.7\.0 Authentication required/) }),
    ]);
    expect(await fetchAll(recipient)).toEqual([]);
  });

  it('takes mail after a password login over AUTH PLAIN and AUTH LOGIN', async () => {
    // Guards: the passwd-file passdb not serving submission, or LOGIN (which
    // some clients insist on) missing from auth_mechanisms.
    const mail = mailServers();
    const sender = await mail.addUser('password');
    const recipient = await mail.addUser('recipient');
    const credentials = { user: sender.user, pass: sender.password };

    await submit(credentials, sender, recipient.address, 'Over PLAIN', 'PLAIN');
    await submit(credentials, sender, recipient.address, 'Over LOGIN', 'LOGIN');

    expect((await waitForMail(recipient, 2)).map((m) => m.subject).sort()).toEqual(['Over LOGIN', 'Over PLAIN']);
  });
});

type SubmissionAuth = { type: 'OAuth2'; user: string; accessToken: string } | { user: string; pass: string };

/** One mail from `sender` through Dovecot's submission (no TLS: there is none on loopback). */
async function submit(auth: SubmissionAuth | undefined, sender: MailUser, to: string, subject: string, authMethod?: 'PLAIN' | 'LOGIN') {
  const { host, port } = mailServers().submission;
  const transport = nodemailer.createTransport({ host, port, secure: false, ignoreTLS: true, auth, authMethod });
  try {
    return await transport.sendMail({ from: sender.address, to, subject, text: `${subject}.` });
  } finally {
    transport.close();
  }
}

/** One whole SMTP reply, multi-line or not, at the start of the text. */
const SMTP_REPLY = /^(?:\d{3}-.*\r\n)*\d{3} .*\r\n/;

/** Raw SMTP with the submission port: each line is sent after the previous reply; returns the greeting and every reply. */
function smtpDialogue(lines: string[]): Promise<string[]> {
  const { host, port } = mailServers().submission;
  return new Promise((resolve, reject) => {
    const socket = connect(port, host);
    const replies: string[] = [];
    const pending = [...lines];
    let text = '';
    socket.setTimeout(10_000, () => socket.destroy(new Error(`no reply after ${JSON.stringify(replies)}: ${text}`)));
    socket.on('error', reject);
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
      for (let reply = SMTP_REPLY.exec(text); reply; reply = SMTP_REPLY.exec(text)) {
        replies.push(reply[0]);
        text = text.slice(reply[0].length);
        const next = pending.shift();
        if (next !== undefined) socket.write(`${next}\r\n`);
        else {
          socket.end('QUIT\r\n');
          resolve(replies);
        }
      }
    });
  });
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`no result within ${ms} ms`)), ms); });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
