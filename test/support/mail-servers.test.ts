/**
 * The real mail servers the e-mail connector's tests rely on: SMTP delivery
 * through OpenSMTPD into Dovecot, IMAP APPEND, IDLE notices, and a Dovecot
 * restart that keeps users and mail.
 */
import { describe, expect, it } from 'vitest';
import { appendRaw, fetchAll, mailServers, openImap, restartDovecot, sendMail, WAIT_FOR_MAIL_MS, waitForMail } from './mail-servers.ts';

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

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`no result within ${ms} ms`)), ms); });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
