/**
 * An agent's reply as the HTML part of its mail (the text part stays the text
 * as written; nodemailer puts both in multipart/alternative, text first).
 * Mail clients that show HTML then show paragraphs, line breaks and
 * clickable links instead of one run of text.
 *
 * The reply is text typed by a person, never markup, so the rules are few:
 *
 *   every character of the text       →  HTML-escaped (& < > " ')
 *   blank-line separated blocks       →  <p>…</p>
 *   a single line break in a block    →  <br>
 *   http:// and https:// URLs         →  <a href="…">…</a>, minus trailing
 *                                        punctuation (`.` `,` `)` unless its
 *                                        `(` is in the URL, …)
 *   bare addresses (ann@example.com)  →  <a href="mailto:…">…</a>
 *
 * No other scheme is ever linked (so `javascript:` stays text), and the
 * document has no scripts, style sheets or remote resources: one inline
 * font-family, so it reads like the text in most clients.
 */

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/**
 * A link candidate: an http(s) URL up to whitespace, `<`, `>` or `"` (plain
 * text often writes `<https://…>` or `"https://…"`), or a bare address that
 * is not the tail of a longer word. The URL alternative comes first, so an
 * address inside a URL stays part of that URL.
 */
const LINK = /\bhttps?:\/\/[^\s<>"]+|(?<![\w.%+-])[\w.%+-]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\.[A-Za-z]{2,}(?![\w-])/gi;

/** Characters that end a sentence around a URL rather than belong to it. */
const TRAILING = new Set(['.', ',', ';', ':', '!', '?', "'", '*']);
const CLOSERS: Record<string, string> = { ')': '(', ']': '[', '}': '{' };

const count = (text: string, char: string) => text.split(char).length - 1;

/** The URL without the punctuation that follows it in the sentence; a closer stays when its opener is in the URL. */
function trimUrl(url: string): string {
  let end = url.length;
  for (;;) {
    const last = url[end - 1]!;
    const opener = CLOSERS[last];
    const body = url.slice(0, end);
    if (TRAILING.has(last) || (opener !== undefined && count(body, last) > count(body, opener))) end--;
    else return body;
  }
}

/** One line of text: escaped, with its URLs and addresses as links. */
function renderLine(line: string): string {
  let out = '';
  let at = 0;
  for (const match of line.matchAll(LINK)) {
    const start = match.index;
    const isUrl = /^https?:/i.test(match[0]);
    const target = isUrl ? trimUrl(match[0]) : match[0];
    // `https://` and nothing after it (or only punctuation) is no link.
    if (isUrl && !/^https?:\/\/[^/?#]/i.test(target)) continue;
    const href = isUrl ? target : `mailto:${target}`;
    out += `${escapeHtml(line.slice(at, start))}<a href="${escapeHtml(href)}">${escapeHtml(target)}</a>`;
    at = start + target.length;
  }
  return out + escapeHtml(line.slice(at));
}

/** The body of the HTML part for an agent's reply `text` (see the header of this file). */
export function replyHtml(text: string): string {
  const blocks = text
    .replace(/\r\n?/g, '\n')
    .split(/\n(?:[ \t]*\n)+/)
    .map((block) => block.replace(/^\n+|\n+$/g, ''))
    .filter((block) => block.trim() !== '');
  const paragraphs = blocks.map((block) => `<p>${block.split('\n').map(renderLine).join('<br>\n')}</p>`);
  return [
    '<!doctype html>',
    '<html><head><meta charset="utf-8"></head>',
    '<body><div style="font-family:sans-serif">',
    ...paragraphs,
    '</div></body></html>',
    '',
  ].join('\n');
}
