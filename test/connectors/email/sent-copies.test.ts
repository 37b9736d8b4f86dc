/**
 * The Sent copies on their own, in a real IMAP session with the run's
 * Dovecot: a copy whose Message-ID the folder already holds (a provider that
 * files SMTP-sent mail itself, or an append just before a crash) is not
 * appended again; a configured folder is created when missing; every queued
 * copy leaves the queue; nothing queued selects nothing.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { queueSentCopy, SentCopies, SENT_COPY_PREFIX } from '../../../connectors/email/sent-copies.ts';
import { appendRaw, fetchAll, mailServers, openImap } from '../../support/mail-servers.ts';
import { memoryState } from '../../support/memory-state.ts';


const mail = (id: string, subject: string) => Buffer.from(`From: support@example.test\r\nTo: ann@customer.test\r\nSubject: ${subject}\r\nMessage-ID: ${id}\r\n\r\nbody of ${subject}\r\n`);
const logger = pino({ level: 'silent' });

describe('Sent copies', () => {
  it('appends what is queued once, skipping a copy the folder already holds, and empties the queue', async () => {
    const support = await mailServers().addUser('support', 'example.test');
    // The provider filed this one itself when it was sent.
    await appendRaw(support, mail('<filed@example.test>', 'filed by the provider'), 'Sent');
    const state = memoryState();
    await queueSentCopy(state, '<filed@example.test>', mail('<filed@example.test>', 'filed by the provider'));
    await queueSentCopy(state, '<new@example.test>', mail('<new@example.test>', 'ours'), Date.parse('2026-11-20T10:00:00Z'));
    const copies = new SentCopies(undefined, logger);
    const client = await openImap(support);
    await client.mailboxOpen('INBOX');

    expect(await copies.flush(client, state)).toBe(true);
    expect([...state.values.keys()].filter((k) => k.startsWith(SENT_COPY_PREFIX))).toEqual([]);
    expect(copies.status).toEqual({ appended: 1, alreadyThere: 1, lastError: null });
    const sent = await fetchAll(support, 'Sent');
    expect(sent.map((m) => m.messageId)).toEqual(['<filed@example.test>', '<new@example.test>']);
    expect(sent[1]!.flags).toContain('\\Seen');
    // Nothing queued: no mailbox is selected, the session stays where it is.
    expect(await copies.flush(client, state)).toBe(false);
  });

  it('creates a configured folder that is missing', async () => {
    const support = await mailServers().addUser('support', 'example.test');
    const state = memoryState();
    await queueSentCopy(state, '<a@example.test>', mail('<a@example.test>', 'a'));
    const client = await openImap(support);
    await new SentCopies('Support Replies', logger).flush(client, state);
    expect((await fetchAll(support, 'Support Replies')).map((m) => m.messageId)).toEqual(['<a@example.test>']);
    expect(await fetchAll(support, 'Sent')).toEqual([]);
  });
});
