/**
 * What `parseMail` makes of one raw e-mail: the shape every other part of the
 * e-mail connector reads. Addresses are lower-cased; ids are `<…>` as in the
 * headers; `body` is what is posted to the chat and is never blank.
 */

/** One mailbox of an address header. */
export interface MailAddress {
  /** Lower-case; `''` only for the null reverse-path `Return-Path: <>`. */
  address: string;
  /** The decoded display name, when there is one. */
  name?: string;
}

/** A file the customer sent, as listed under the body. */
export interface MailAttachment {
  /** The decoded file name, or `attachment-<n>.<ext>` for an unnamed part. */
  filename: string;
  /** Lower-case MIME type, e.g. `application/pdf`. */
  contentType: string;
  /** Decoded size in bytes. */
  size: number;
}

/** A file of the mail with its bytes, to keep and link (attachment-files.ts): the listed ones and inline images. */
export interface MailFile extends MailAttachment {
  content: Buffer;
  /** An image the HTML shows inline (`cid:`), not listed as an attachment before. */
  inline: boolean;
}

/** The stable codes of mail that is parsed but must not be posted. */
export const SkipCode = {
  /** Mail the gateway sent itself (carries the connector's own header). */
  own: 'TG_EMAIL_OWN',
  /** A delivery status notification: bounce, delay, MAILER-DAEMON. */
  bounce: 'TG_EMAIL_BOUNCE',
  /** A read receipt (message disposition notification). */
  receipt: 'TG_EMAIL_RECEIPT',
  /** Out-of-office and other automatic answers or generated mail. */
  autoReply: 'TG_EMAIL_AUTO_REPLY',
  /** Mailing lists, newsletters, bulk and junk precedence. */
  bulk: 'TG_EMAIL_BULK',
  /** Nothing readable could be made of the bytes. */
  unparseable: 'TG_EMAIL_UNPARSEABLE',
} as const;
export type SkipCode = (typeof SkipCode)[keyof typeof SkipCode];

export interface MailSkip {
  code: SkipCode;
  /** For the log and the admin page: which header or shape decided it. */
  reason: string;
}

/**
 * Raw top-level headers: lower-case name → every value in order of
 * appearance, unfolded, not decoded (RFC 2047 words stay encoded).
 */
export type RawHeaders = Readonly<Record<string, readonly string[]>>;

export interface ParsedMail {
  /** `<id>` from the Message-ID header, or a stable derived one (see `deriveMessageId`). */
  messageId: string;
  /** True when `messageId` was derived because the header was missing or unusable. */
  messageIdDerived: boolean;
  /** `<id>`s of In-Reply-To, in order, without repeats. */
  inReplyTo: string[];
  /** `<id>`s of References, oldest first, without repeats. */
  references: string[];
  from?: MailAddress;
  to: MailAddress[];
  cc: MailAddress[];
  replyTo: MailAddress[];
  /** The top-most Delivered-To (the mailbox it was finally delivered to). */
  deliveredTo?: MailAddress;
  /** The reverse-path the final MTA recorded; `address: ''` for `<>`. */
  returnPath?: MailAddress;
  /** Decoded, whitespace-collapsed; `''` when absent. */
  subject: string;
  /** Absent when the header is missing or not a date. */
  date?: Date;
  /** The new text: quoted history and signature stripped; `(no text)` when nothing is left. */
  text: string;
  /** Posted to the chat: `text`, then one `[attachment: …]` line per file; never blank. */
  body: string;
  /** The whole decoded text before quoted history and signature were removed. */
  fullText: string;
  attachments: MailAttachment[];
  /** The files with their bytes (the listed attachments and the inline images), in the mail's order. */
  files: MailFile[];
  /** Set when the mail must not be posted. */
  skip?: MailSkip;
  /** The interesting raw headers (threading, addresses, auto-reply and list markers, the own header). */
  headers: RawHeaders;
}
