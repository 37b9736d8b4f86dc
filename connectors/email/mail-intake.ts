/**
 * One raw mail from the mailbox to the bridge: parse it, skip what must
 * never be posted (with the reason), find its thread, submit it, and remember
 * what replies need (customer, subject, Message-ID chain). Idempotent: the
 * same mail read twice is a duplicate submit and changes nothing else.
 *
 * The gateway's own mail coming back (a Bcc, a forwarding rule, a list) is
 * skipped as `TG_EMAIL_OWN` by any of: our header `X-Threadgate-Connector`
 * (noise.ts), our Message-ID form `<tg.<32 hex>@<support domain>>`, or a From
 * of the support address itself. None of this relies on `Auto-Submitted`,
 * which people's replies do not carry.
 *
 * No mail may stall the mailbox, whatever its size or headers. So before
 * `submit` (which refuses ids over 2,000 characters and bodies over
 * 1,000,000 with `TG_SUBMIT_INVALID`):
 *
 *   body       > 100,000 characters   → the text cut so that it, the line
 *                                         `[… message cut: N characters in all]`
 *                                         (N: the whole text's length) and the
 *                                         attachment lines after it fit in 100,000;
 *                                         the list itself is kept to 10,000 characters,
 *                                         ending `[… and N more attachments]` if need be
 *   fullText   > 1,000,000 characters → cut the same way, marker included in the 1,000,000
 *   Message-ID > 2,000 characters     → `<sha256-hex@threadgate.invalid>` of the id; the same
 *                                         mapping for In-Reply-To / References ids, so a reply
 *                                         to such a mail still finds its thread, and the
 *                                         stored chain (replies' In-Reply-To) stays sendable
 *   sender     > 2,000 characters     → lower-cased, cut to 1,935 characters, `~`, sha256-hex
 *                                         of the whole address (distinct senders stay distinct);
 *                                         replies still go to the whole address
 *
 * and whatever `submit` still refuses with `TG_SUBMIT_INVALID` is recorded
 * with `ctx.skip` as `TG_EMAIL_UNSUBMITTABLE` (the error's message as the
 * reason), so the watcher's cursor moves on. `recordUnhandled` records a mail
 * the watcher gave up on (see mailbox-watcher.ts) as `TG_EMAIL_UNHANDLED`.
 */
import { createHash } from 'node:crypto';
import type { ConnectorContext } from '../../src/connector/api.ts';
import { DERIVED_ID_DOMAIN, isOwnMessageId } from './message-ids.ts';
import { attachmentLine } from './attachments.ts';
import { composeBody, parseMail, type ParseMailOptions, type ParsedMail } from './parse-mail.ts';
import { SkipCode, type MailAttachment } from './parsed-mail.ts';
import { replyToken, tokenReference } from './reply-token.ts';
import { readThreadInfo, threadInfoEntry, withReferences, writeThreadInfo } from './thread-info.ts';
import { resolveThread } from './threading.ts';

/** Every mail the gateway sends carries this header naming the connector. */
export const OWN_HEADER = 'X-Threadgate-Connector';

/** The longest body posted to the chat; the rest is in `fullText`. */
export const MAX_BODY_CHARS = 100_000;
/** The longest attachment list kept under a cut body. */
export const MAX_LIST_CHARS = 10_000;
/** The longest full text stored (the bridge's own limit for a body). */
export const MAX_FULL_TEXT_CHARS = 1_000_000;
/** The bridge's limit for thread keys, message ids and sender ids. */
export const MAX_ID_CHARS = 2_000;

export const UNSUBMITTABLE = 'TG_EMAIL_UNSUBMITTABLE';
export const UNHANDLED = 'TG_EMAIL_UNHANDLED';

export type IntakeOutcome =
  | { kind: 'submitted'; threadKey: string; duplicate: boolean; via: string }
  | { kind: 'skipped'; code: string; reason: string };

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** A Message-ID the bridge can store: itself, or a stable hash of it when too long. */
export function fitMessageId(id: string): string {
  return id.length <= MAX_ID_CHARS ? id : `<${sha256(id)}@${DERIVED_ID_DOMAIN}>`;
}

/** A sender id the bridge can store: the lower-cased address, or its cut plus a hash of the whole when too long. */
export function fitAddress(address: string): string {
  const lower = address.toLowerCase();
  if (lower.length <= MAX_ID_CHARS) return lower;
  const hash = sha256(lower);
  return `${cutAt(lower, MAX_ID_CHARS - hash.length - 1)}~${hash}`;
}

export const cutMarker = (total: number): string => `[… message cut: ${total} characters in all]`;

/**
 * The body to post: the text and the attachment lines, at most MAX_BODY_CHARS.
 * When that is too long the text is cut and says so, and the attachment list
 * after it is kept (itself at most MAX_LIST_CHARS).
 */
export function fitBody(text: string, attachments: readonly MailAttachment[] = []): string {
  const lines = attachments.map(attachmentLine);
  const whole = composeBody(text, lines);
  if (whole.length <= MAX_BODY_CHARS) return whole;
  const list = fitList(lines);
  return composeBody(fitText(text, MAX_BODY_CHARS - (list === '' ? 0 : list.length + 2)), list === '' ? [] : [list]);
}

/** Attachment lines up to MAX_LIST_CHARS, then how many more there are. */
function fitList(lines: readonly string[]): string {
  let list = '';
  for (const [i, line] of lines.entries()) {
    const next = list === '' ? line : `${list}\n${line}`;
    if (next.length > MAX_LIST_CHARS) return [list, `[… and ${lines.length - i} more attachments]`].filter((part) => part !== '').join('\n');
    list = next;
  }
  return list;
}

/** The full text to store: at most MAX_FULL_TEXT_CHARS in all, marker line included. */
export function fitFullText(text: string): string {
  return fitText(text, MAX_FULL_TEXT_CHARS);
}

/** The text when it fits in `max`, else its start and the marker line, `max` characters in all. */
function fitText(text: string, max: number): string {
  if (text.length <= max) return text;
  const marker = `\n${cutMarker(text.length)}`;
  return `${cutAt(text, max - marker.length)}${marker}`;
}

/** The first `length` UTF-16 units, one fewer when that would split a surrogate pair. */
function cutAt(text: string, length: number): string {
  const last = text.charCodeAt(length - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? length - 1 : length);
}

const isSubmitInvalid = (err: unknown) => (err as { code?: unknown } | null)?.code === 'TG_SUBMIT_INVALID';
const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** What the intake reads of a parsed mail, with every id fitted to the bridge's limits. */
interface Fitted {
  mail: ParsedMail;
  messageId: string;
  /** The sender id (fitted); undefined when the mail has no From address. */
  senderId: string | undefined;
}

export class MailIntake {
  readonly #ctx: ConnectorContext;
  readonly #address: string;
  readonly #domain: string;
  readonly #parseOptions: ParseMailOptions;
  readonly #parsing = new WeakMap<Buffer, Promise<ParsedMail>>();

  constructor(ctx: ConnectorContext, supportAddress: string, acceptListIds: readonly string[] = []) {
    this.#ctx = ctx;
    this.#address = supportAddress;
    this.#domain = supportAddress.slice(supportAddress.lastIndexOf('@') + 1);
    this.#parseOptions = { ownHeaderName: OWN_HEADER, acceptListIds };
  }

  /**
   * Starts parsing a mail that `take` will get next, so its parse overlaps the
   * store's commit of the mail before it. At most the mails announced and not
   * yet taken are held (the watcher announces one ahead).
   */
  prepare(raw: Buffer): void {
    if (this.#parsing.has(raw)) return;
    const parsing = parseMail(raw, this.#parseOptions);
    parsing.catch(() => {}); // surfaces in `take`
    this.#parsing.set(raw, parsing);
  }

  async take(raw: Buffer): Promise<IntakeOutcome> {
    const prepared = this.#parsing.get(raw);
    this.#parsing.delete(raw);
    const mail = await (prepared ?? parseMail(raw, this.#parseOptions));
    const fitted = fit(mail);
    const sender = mail.from?.address;
    // Our own mail come back with our header stripped (and From rewritten) by a forwarder or list still has our Message-ID.
    if (isOwnMessageId(mail.messageId, this.#domain)) return this.#skip(fitted, SkipCode.own, `Message-ID ${mail.messageId} is one the gateway gave its own mail`);
    if (mail.skip) return this.#skip(fitted, mail.skip.code, mail.skip.reason);
    if (sender === undefined || fitted.senderId === undefined) return this.#skip(fitted, 'TG_EMAIL_NO_SENDER', 'no From address');
    if (sender === this.#address) return this.#skip(fitted, SkipCode.own, 'sent from the support address itself');
    const { messageId, senderId } = fitted;

    const recipients = [...mail.to, ...mail.cc, ...(mail.deliveredTo ? [mail.deliveredTo] : [])].map((a) => a.address);
    const match = await resolveThread(
      { messageId, inReplyTo: mail.inReplyTo.map(fitMessageId), references: mail.references.map(fitMessageId), recipients },
      this.#ctx.threads,
      this.#address,
    );
    const known = await readThreadInfo(this.#ctx.state, match.key);
    const subject = known?.subject ?? mail.subject;
    const first = known === undefined;
    const info = withReferences(
      { customer: { address: sender, ...(mail.from?.name ? { name: mail.from.name } : {}) }, subject, lastMessageId: messageId, references: known?.references ?? [] },
      [messageId],
    );
    let result;
    try {
      result = await this.#ctx.submit({
        threadKey: match.key,
        messageId,
        senderId,
        ...(mail.from?.name ? { senderName: mail.from.name } : {}),
        body: fitBody(first && mail.subject !== '' ? `${mail.subject}\n\n${mail.text}` : mail.text, mail.attachments),
        fullText: fitFullText(mail.fullText),
        variables: { email: senderId, name: mail.from?.name ?? null, subject: mail.subject },
        references: [messageId, tokenReference(replyToken(match.key))],
      }, { state: threadInfoEntry(match.key, info) }); // stored with a new message, in its own write
    } catch (err) {
      // Refused for what it is, not for the state of the store: it would be refused forever.
      if (isSubmitInvalid(err)) return this.#skip(fitted, UNSUBMITTABLE, messageOf(err));
      throw err;
    }
    // A mail read again (a rescan) must not move the chain backwards (the state went with the message only when it
    // was new); a duplicate whose thread has no state yet (an older store) sets it.
    if (result.duplicate && known === undefined) await writeThreadInfo(this.#ctx.state, match.key, info);
    return { kind: 'submitted', threadKey: match.key, duplicate: result.duplicate, via: match.via };
  }

  /** Records a mail whose handling kept failing (the watcher gave up on it) as skipped, with the last error. */
  async recordUnhandled(raw: Buffer, error: unknown): Promise<IntakeOutcome> {
    const mail = await parseMail(raw, this.#parseOptions);
    return this.#skip(fit(mail), UNHANDLED, `handling failed repeatedly: ${messageOf(error)}`);
  }

  async #skip({ mail, messageId, senderId }: Fitted, code: string, reason: string): Promise<IntakeOutcome> {
    await this.#ctx.skip({
      messageId,
      code,
      reason,
      ...(senderId ? { senderId } : {}),
      ...(mail.subject ? { summary: mail.subject } : {}),
    });
    return { kind: 'skipped', code, reason };
  }
}

function fit(mail: ParsedMail): Fitted {
  const address = mail.from?.address;
  return { mail, messageId: fitMessageId(mail.messageId), senderId: address ? fitAddress(address) : undefined };
}
