/**
 * The text an agent's reply becomes in Slack, and a long one as several
 * messages. The text: the agent's name in bold first (`*Ann*: `, with
 * `agent_names`), then the reply, then a line for each file not sent; all of
 * it escaped for Slack (mrkdwn.ts). chat.postMessage
 * truncates text past 40,000 characters and Slack recommends at most 4,000
 * (https://api.slack.com/methods/chat.postMessage, "Truncating content"), so
 * a reply is cut into parts of at most `PART_CHARS`, each posted in the
 * thread in order —
 *
 *   at the last blank line in the part's second half, else the last line break there, else the last
 *   space there, else at the limit itself (never inside a surrogate pair or an escape like &amp;)
 *
 * White space at a cut is dropped; nothing else is. The text given is the
 * one Slack gets (already escaped), so the limit is Slack's count.
 */
import { escapeForSlack } from './mrkdwn.ts';

/** Characters of one part: Slack's recommended upper bound for a message's text. */
export const PART_CHARS = 4_000;

export function splitText(text: string, max = PART_CHARS): string[] {
  if (max < 16) throw new RangeError('splitText: a part must hold at least 16 characters');
  const parts: string[] = [];
  let rest = text.trim();
  while (rest.length > max) {
    const cut = cutAt(rest, max);
    parts.push(rest.slice(0, cut).trimEnd());
    rest = rest.slice(cut).trimStart();
  }
  if (rest !== '') parts.push(rest);
  return parts;
}

/** Where to end the part that starts `text` (longer than `max`). */
function cutAt(text: string, max: number): number {
  const window = text.slice(0, max + 1);
  const floor = Math.floor(max / 2);
  for (const mark of ['\n\n', '\n', ' ']) {
    const at = window.lastIndexOf(mark, max);
    if (at >= floor && at <= max) return at;
  }
  let cut = max;
  const code = text.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut -= 1;
  // An escape (&amp; &lt; &gt;) is never cut in two.
  const amp = text.lastIndexOf('&', cut - 1);
  if (amp >= 0 && cut - amp < 5 && !text.slice(amp, cut).includes(';') && /^&(?:amp|lt|gt);/.test(text.slice(amp, amp + 5))) cut = amp;
  return cut;
}

/** The reply as Slack gets it: `*<agent>*: <text>`, then the lines of files not sent, escaped. */
export function replyText(agentName: string | null | undefined, text: string, notSent: readonly string[], withName: boolean): string {
  const body = [text.replace(/\r\n?/g, '\n').trim(), ...notSent].filter((s) => s !== '').join('\n\n');
  const name = (agentName ?? '').replace(/[*\s]+/g, ' ').trim();
  const escaped = escapeForSlack(body);
  return withName && name !== '' && escaped !== '' ? `*${escapeForSlack(name)}*: ${escaped}` : escaped;
}
