/**
 * One raw e-mail (RFC 5322 bytes, CRLF or LF) as a `ParsedMail`: ids for
 * threading, addresses, subject, date, the chat body and why it must be
 * skipped, if it must.
 *
 *   raw ─┬─ raw-headers.ts  header block → ids, Delivered-To, Return-Path, Date, noise
 *        └─ mime-content.ts simpleParser → text (or HTML as text), files, attached messages
 *              │ mailparser throws
 *              └─ fallback-text.ts (text from the bytes) + simpleParser on the header block alone
 *                    │ that throws too, or there are no headers at all
 *                    └─ skip TG_EMAIL_UNPARSEABLE
 *
 * The body: quoted history and signature stripped (src/connector/text/strip-quotes.ts), then
 * one `[attachment: name, size]` line per file; `(no text)` when no text
 * is left. Never throws: whatever the bytes, the caller gets a message,
 * possibly one with `skip` set.
 */
import type { ParsedMail as MailparserMail } from 'mailparser';
import { parseBareAddress, toMailAddresses } from './addresses.ts';
import { attachmentLine } from './attachments.ts';
import { fallbackText } from './fallback-text.ts';
import { parseMailDate } from './mail-date.ts';
import { deriveMessageId, extractMessageIds, firstMessageId } from './message-ids.ts';
import { PARSER_OPTIONS, readMimeContent, simpleParser } from './mime-content.ts';
import { classifyNoise, type NoiseOptions } from './noise.ts';
import { SkipCode, type MailAddress, type MailAttachment, type MailFile, type MailSkip, type ParsedMail } from './parsed-mail.ts';
import { pickInterestingHeaders, readHeaderBlock, withUtf8HeaderBlock, type HeaderBlock } from './raw-headers.ts';
import { normaliseText, stripQuotes } from '../../src/connector/api.ts';

export type { MailAddress, MailAttachment, MailSkip, ParsedMail } from './parsed-mail.ts';

export type ParseMailOptions = NoiseOptions;

/** The body when nothing of the text is left. */
export const NO_TEXT = '(no text)';
/** Header values longer than this are cut before the fallback parse. */
const MAX_FALLBACK_HEADER_CHARS = 16_384;

/** What the MIME reading (or its fallback) decoded. */
interface Decoded {
  subject: string;
  from: MailAddress[];
  to: MailAddress[];
  cc: MailAddress[];
  replyTo: MailAddress[];
  text: string;
  attachments: MailAttachment[];
  files: MailFile[];
}

const NOTHING_DECODED: Decoded = { subject: '', from: [], to: [], cc: [], replyTo: [], text: '', attachments: [], files: [] };

/** The new text of a mail's whole text: quoted history and signature stripped, `(no text)` when nothing is left. */
function newText(fullText: string): string {
  return fullText.trim() === '' ? NO_TEXT : stripQuotes(fullText);
}

/** The chat body: the text, a blank line, one `[attachment: …]` line per file. */
export function composeBody(text: string, attachmentLines: readonly string[]): string {
  return [text, attachmentLines.join('\n')].filter((part) => part !== '').join('\n\n');
}

const cleanSubject = (subject: string | undefined) => (subject ?? '').replace(/\s+/g, ' ').trim();
const reasonOf = (error: unknown) => (error instanceof Error ? error.message : String(error)).slice(0, 200);

/** Subject and addresses of a mailparser result. */
function addressesOf(mail: MailparserMail): Omit<Decoded, 'text' | 'attachments' | 'files'> {
  return {
    subject: cleanSubject(mail.subject),
    from: toMailAddresses(mail.from),
    to: toMailAddresses(mail.to),
    cc: toMailAddresses(mail.cc),
    replyTo: toMailAddresses(mail.replyTo),
  };
}

async function decodeWithMailparser(raw: Buffer, block: HeaderBlock): Promise<Decoded> {
  const { mail, text, attachments, files } = await readMimeContent(withUtf8HeaderBlock(raw, block.bodyStart));
  return { ...addressesOf(mail), text, attachments, files };
}

/** Address and subject headers only, each cut to a sane length: what a refused header block can still give. */
function essentialHeaders(block: HeaderBlock): Buffer {
  const lines: string[] = [];
  for (const name of ['from', 'to', 'cc', 'reply-to', 'subject']) {
    for (const value of block.headers[name] ?? []) lines.push(`${name}: ${value.slice(0, MAX_FALLBACK_HEADER_CHARS)}`);
  }
  return Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'utf8');
}

/** mailparser refused the message: headers from the essential header lines alone, text read without it. */
async function decodeWithoutMime(raw: Buffer, block: HeaderBlock): Promise<Decoded> {
  const mail = await simpleParser(essentialHeaders(block), PARSER_OPTIONS);
  return { ...addressesOf(mail), text: normaliseText(fallbackText(raw)), attachments: [], files: [] };
}

function withBody(text: string, attachments: readonly MailAttachment[]): Pick<ParsedMail, 'text' | 'body'> {
  return { text, body: composeBody(text, attachments.map(attachmentLine)) };
}

function assemble(raw: Buffer, block: HeaderBlock, decoded: Decoded, skip: MailSkip | undefined, options: ParseMailOptions): ParsedMail {
  const { headers } = block;
  const ownId = firstMessageId(headers['message-id']);
  const first = (name: string) => headers[name]?.[0];
  const deliveredTo = parseBareAddress(first('delivered-to'));
  const returnPath = parseBareAddress(first('return-path'));
  const from = decoded.from[0] ?? parseBareAddress(first('from'));
  const date = parseMailDate(first('date'));
  const noise = skip ?? classifyNoise(headers, options);
  return {
    messageId: ownId ?? deriveMessageId(raw),
    messageIdDerived: ownId === undefined,
    inReplyTo: extractMessageIds(headers['in-reply-to']),
    references: extractMessageIds(headers['references']),
    ...(from && from.address !== '' ? { from } : {}),
    to: decoded.to,
    cc: decoded.cc,
    replyTo: decoded.replyTo,
    ...(deliveredTo && deliveredTo.address !== '' ? { deliveredTo } : {}),
    ...(returnPath ? { returnPath } : {}),
    subject: decoded.subject,
    ...(date ? { date } : {}),
    ...withBody(newText(decoded.text), decoded.attachments),
    fullText: decoded.text,
    attachments: decoded.attachments,
    files: decoded.files,
    ...(noise ? { skip: noise } : {}),
    headers: pickInterestingHeaders(headers, options.ownHeaderName),
  };
}

/** Parses one raw mail; never throws (see the module comment). */
export async function parseMail(raw: Buffer, options: ParseMailOptions = {}): Promise<ParsedMail> {
  let block: HeaderBlock = { headers: {}, bodyStart: 0 };
  try {
    block = readHeaderBlock(raw);
    if (Object.keys(block.headers).length === 0) {
      const reason = raw.length === 0 ? 'empty message' : 'no header block: not an e-mail message';
      return assemble(raw, block, NOTHING_DECODED, { code: SkipCode.unparseable, reason }, options);
    }
    try {
      return assemble(raw, block, await decodeWithMailparser(raw, block), undefined, options);
    } catch (mimeError) {
      try {
        return assemble(raw, block, await decodeWithoutMime(raw, block), undefined, options);
      } catch (headerError) {
        const reason = `unreadable MIME (${reasonOf(mimeError)}) and headers (${reasonOf(headerError)})`;
        const subject = cleanSubject(block.headers['subject']?.[0]); // still RFC 2047-encoded, if it was
        return assemble(raw, block, { ...NOTHING_DECODED, subject }, { code: SkipCode.unparseable, reason }, options);
      }
    }
  } catch (error) {
    // A bug of ours must not stop the mailbox either: report the mail as unparseable.
    return {
      messageId: deriveMessageId(raw),
      messageIdDerived: true,
      inReplyTo: [],
      references: [],
      to: [],
      cc: [],
      replyTo: [],
      subject: '',
      text: NO_TEXT,
      body: NO_TEXT,
      fullText: '',
      attachments: [],
      files: [],
      skip: { code: SkipCode.unparseable, reason: `unexpected parser failure: ${reasonOf(error)}` },
      headers: pickInterestingHeaders(block.headers, options.ownHeaderName),
    };
  }
}
