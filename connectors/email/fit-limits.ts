/**
 * The bridge's limits applied to a mail before `submit`, so that no mail can
 * stall the mailbox, whatever its size or headers (`submit` refuses ids over
 * 2,000 characters and bodies over 1,000,000 with `TG_SUBMIT_INVALID`):
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
 */
import { createHash } from 'node:crypto';
import { composeBody } from './parse-mail.ts';
import { DERIVED_ID_DOMAIN } from './message-ids.ts';

/** The longest body posted to the chat; the rest is in `fullText`. */
export const MAX_BODY_CHARS = 100_000;
/** The longest attachment list kept under a cut body. */
export const MAX_LIST_CHARS = 10_000;
/** The longest full text stored (the bridge's own limit for a body). */
export const MAX_FULL_TEXT_CHARS = 1_000_000;
/** The bridge's limit for thread keys, message ids and sender ids. */
export const MAX_ID_CHARS = 2_000;

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
 * The body to post: the text and the attachment lines (attachment-files.ts), at most MAX_BODY_CHARS.
 * When that is too long the text is cut and says so, and the attachment list
 * after it is kept (itself at most MAX_LIST_CHARS).
 */
export function fitBody(text: string, lines: readonly string[] = []): string {
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

