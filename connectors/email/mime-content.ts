/**
 * The content of a MIME message — its readable text and its files — with
 * mailparser's `simpleParser` doing the MIME work (structure, transfer
 * encodings, charsets including ISO-2022-JP, RFC 2047/2231 names).
 *
 * mailparser is asked for the raw parts (no HTML→text of its own, cid links
 * kept) so that src/connector/text/html-text.ts decides how HTML reads and attachments.ts can
 * tell inline images from files.
 *
 * A message attached as a file (message/rfc822, as "forward as attachment"
 * sends it) is read too and appended under a forward marker, so the agent
 * sees what was forwarded and quote stripping leaves it alone:
 *
 *   ---------- Forwarded message ----------
 *   From: Jane <jane@example.com>
 *   Date: Mon, 4 Mar 2024 09:12:00 +0100
 *   Subject: Broken invoice
 *   To: shop@example.com
 *
 *   <its text>
 *
 * (mailparser itself inlines only `Content-Disposition: inline` messages.)
 */
import type { ParsedMail as MailparserMail, SimpleParserOptions } from 'mailparser';
import { listAttachments } from './attachments.ts';
import { readableText } from '../../src/connector/api.ts';
import type { MailAttachment, MailFile } from './parsed-mail.ts';

export const PARSER_OPTIONS: SimpleParserOptions = {
  skipHtmlToText: true,
  keepCidLinks: true,
  skipTextToHtml: true,
  skipTextLinks: true,
};

/** Messages attached inside attached messages are read this deep, no deeper. */
export const MAX_FORWARD_DEPTH = 3;
export const FORWARD_MARKER = '---------- Forwarded message ----------';

export interface MimeContent {
  /** What mailparser made of it. */
  mail: MailparserMail;
  /** The readable text, attached messages appended, normalised; may be empty. */
  text: string;
  attachments: MailAttachment[];
  /** The files with their bytes, inline images included (attachment-files.ts keeps and links them). */
  files: MailFile[];
}

/** The raw value of a top-level header of a parsed message, unfolded. */
function rawHeader(mail: MailparserMail, key: string): string | undefined {
  const line = mail.headerLines?.find((entry) => entry.key === key)?.line;
  return line?.slice(line.indexOf(':') + 1).replace(/\r?\n[ \t]+/g, ' ').trim();
}

function forwardBlock(content: MimeContent): string {
  const { mail } = content;
  const to = Array.isArray(mail.to) ? mail.to.map((object) => object.text).join(', ') : mail.to?.text;
  const header = [
    ['From', mail.from?.text],
    ['Date', rawHeader(mail, 'date')],
    ['Subject', mail.subject?.trim()],
    ['To', to],
  ]
    .filter(([, value]) => value)
    .map(([name, value]) => `${name}: ${value}`);
  return [FORWARD_MARKER, ...header, '', content.text].join('\n').trimEnd();
}

/**
 * mailparser, imported at the first mail read (docs/decisions/footprint.md): with what it loads (html-to-text,
 * linkify-it, he) about 4 MiB that a gateway waiting on an empty mailbox does not hold; the first mail waits for
 * the import once (24–43 ms measured, the compile cache warm).
 */
let mailparser: Promise<typeof import('mailparser')> | undefined;

/** mailparser's `simpleParser`, with the library imported at its first call. */
export async function simpleParser(raw: Buffer, options: SimpleParserOptions): Promise<MailparserMail> {
  return (await (mailparser ??= import('mailparser'))).simpleParser(raw, options);
}

/** Reads one message; throws what mailparser throws (the caller falls back). */
export async function readMimeContent(raw: Buffer, depth = 0): Promise<MimeContent> {
  const mail = await simpleParser(raw, PARSER_OPTIONS);
  const parts = [readableText(mail.text, mail.html)];
  if (depth < MAX_FORWARD_DEPTH) {
    for (const attachment of mail.attachments) {
      if (attachment.contentType?.toLowerCase() !== 'message/rfc822' || !Buffer.isBuffer(attachment.content)) continue;
      try {
        parts.push(forwardBlock(await readMimeContent(attachment.content, depth + 1)));
      } catch {
        // An attached message mailparser cannot read stays an attachment line only.
      }
    }
  }
  const { listed, files } = listAttachments(mail.attachments, mail.html);
  return { mail, text: parts.filter((part) => part.trim() !== '').join('\n\n'), attachments: listed, files };
}
