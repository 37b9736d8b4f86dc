/**
 * An agent's reply cut into Telegram messages. sendMessage takes 1 to 4096
 * characters of text (https://core.telegram.org/bots/api#sendmessage) and
 * refuses a longer one ("Bad Request: message is too long"); characters are
 * counted here as UTF-16 code units (JavaScript's `length`), which is never
 * fewer than Telegram's count, so no part is ever refused for its length.
 *
 * Each part ends, in this order of preference, at the last paragraph break,
 * line break or space that leaves it at least half full; else at the last
 * white space at all; else (one word longer than a message) after 4096
 * units, never between the two halves of a surrogate pair (an emoji). The
 * break itself is dropped: a paragraph break or line break between two
 * parts is where one message ends and the next begins. Parts that would be
 * blank are left out (Telegram refuses an empty message).
 */

export const TELEGRAM_TEXT_LIMIT = 4_096;

/** The breaks a part may end at, best first, and how much of the text each takes away. */
const BREAKS = ['\n\n', '\n', ' '] as const;

interface Cut {
  /** Where the part ends (exclusive). */
  end: number;
  /** Where the next part starts. */
  next: number;
}

/** The parts `text` is sent as, each at most `limit` units long and none blank. */
export function splitText(text: string, limit: number = TELEGRAM_TEXT_LIMIT): string[] {
  if (!Number.isInteger(limit) || limit < 2) throw new RangeError(`splitText: limit must be an integer of at least 2, not ${limit}`);
  const parts: string[] = [];
  let rest = text;
  while (rest.length > limit) {
    const cut = cutOf(rest, limit);
    parts.push(rest.slice(0, cut.end));
    rest = rest.slice(cut.next);
  }
  parts.push(rest);
  return parts.map((part) => part.replace(/\s+$/, '')).filter((part) => part.trim() !== '');
}

/** Where to cut `text` (longer than `limit`). */
function cutOf(text: string, limit: number): Cut {
  for (const mark of BREAKS) {
    // A break that starts right at the limit still leaves a full part before it.
    const at = text.lastIndexOf(mark, limit);
    if (at >= limit / 2) return { end: at, next: at + mark.length };
  }
  const window = text.slice(0, limit + 1);
  for (let at = window.length - 1; at > 0; at -= 1) {
    if (/\s/.test(window[at]!)) return { end: at, next: at + 1 };
  }
  const high = text.charCodeAt(limit - 1);
  const end = high >= 0xd800 && high <= 0xdbff ? limit - 1 : limit;
  return { end, next: end };
}
