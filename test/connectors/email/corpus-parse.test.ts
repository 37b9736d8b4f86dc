/**
 * The e-mail parser over a corpus of real-world-shaped raw messages
 * (test/fixtures/mail/*.eml, CRLF and LF): Gmail, Outlook, Apple Mail and
 * Thunderbird replies, forwards, attachments, the charsets and encodings
 * mail really uses, broken mail, and the robots that must never reach the
 * chat. Guards against: a customer's words missing from the chat, quoted
 * history or signatures flooding it, mojibake, a parser exception stopping
 * the mailbox, and an auto-reply or bounce being answered (a mail loop).
 */
import { describe, expect, it } from 'vitest';
import { BROKEN_AND_ROBOTS } from './corpus-broken-robots.ts';
import { CONTENT_AND_CHARSETS } from './corpus-content-charsets.ts';
import { REPLIES_AND_FORWARDS } from './corpus-replies-forwards.ts';
import { attachmentLines, DERIVED_ID, fixtureFiles, parse, read, type Expected } from './corpus-support.ts';

const CORPUS: Expected[] = [...REPLIES_AND_FORWARDS, ...CONTENT_AND_CHARSETS, ...BROKEN_AND_ROBOTS];

describe('the mail corpus', () => {
  it('has an expectation for every fixture, and at least 30 of them in both line-end styles', () => {
    expect(CORPUS.map((entry) => entry.file).sort()).toEqual(fixtureFiles);
    expect(fixtureFiles.length).toBeGreaterThanOrEqual(30);
    const crlf = fixtureFiles.filter((file) => read(file).includes('\r\n'));
    expect(crlf.length).toBeGreaterThan(5);
    expect(fixtureFiles.length - crlf.length).toBeGreaterThan(5);
  });

  it.each(CORPUS)('$file', async (expected) => {
    const mail = await parse(expected.file);

    expect(mail.subject).toBe(expected.subject);
    expect(mail.from?.address ?? null).toBe(expected.from);
    expect(mail.skip?.code).toBe(expected.skip);
    for (const part of expected.body ?? []) expect(mail.body).toContain(part);
    for (const part of expected.notInBody ?? []) expect(mail.body).not.toContain(part);
    expect(attachmentLines(mail)).toEqual(expected.attachments ?? []);
    if (expected.derivedId) expect(mail.messageId).toMatch(DERIVED_ID);
    else expect(mail.messageId).toMatch(/^<[^<>\s]+@[^<>\s]+>$/);
    expect(mail.messageIdDerived).toBe(expected.derivedId === true);
    if (expected.threading) expect({ inReplyTo: mail.inReplyTo, references: mail.references }).toEqual(expected.threading);
    for (const part of expected.stripped ?? []) {
      expect(mail.body).not.toContain(part);
      expect(mail.fullText).toContain(part);
    }
  });

  it('never throws, and gives every mail a non-blank body or a skip with a reason', async () => {
    for (const file of fixtureFiles) {
      const mail = await parse(file);
      expect(mail.body.trim(), file).not.toBe('');
      if (mail.skip) expect(mail.skip.reason.trim(), file).not.toBe('');
    }
  });

  it('gives every mail the same Message-ID on every parse, derived ones included', async () => {
    for (const file of fixtureFiles) {
      const [first, second] = [await parse(file), await parse(file)];
      expect(second.messageId, file).toBe(first.messageId);
    }
  });
});
