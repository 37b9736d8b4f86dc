/**
 * `GET /admin`: one self-contained page that asks for the admin token and
 * works through the admin API. Its source beside this file is split by
 * concept — page.html (the markup), page.css (the styles) and the script in
 * SCRIPT_PIECES — and assembled once, at start, into one HTML text with the
 * style and the script inline: the browser receives one document and fetches
 * nothing else. The Content-Security-Policy is computed from the assembled
 * text: it allows exactly that inline script and style (by their SHA-256)
 * and requests to this origin only — no script or style URL at all.
 */
import { readFileSync } from 'node:fs';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { inlinePageHeaders } from '../inline-page.ts';

/**
 * The script, in order. The pieces share one strict-mode closure (nothing
 * reaches `window`), so a later piece uses what an earlier one declares; the
 * last one opens the page.
 */
const SCRIPT_PIECES = ['page-common.js', 'page-session.js', 'page-lists.js', 'page-live.js', 'page-detail.js'];

const read = (name: string): string => readFileSync(new URL(`./${name}`, import.meta.url), 'utf8');

/** Two spaces before every non-empty line: a piece as it sits inside `<style>` or the closure. */
const indented = (text: string): string => text.replace(/^(?=.)/gm, '  ');

/**
 * `html` with its one `marker` replaced by `text` (taken literally: the
 * script is full of `$`). A text that could end its element early or open an
 * HTML comment inside it is refused, so the page cannot start half-built.
 */
function inline(html: string, marker: string, text: string, from: string): string {
  if (html.split(marker).length !== 2) throw new Error(`admin page: page.html must hold ${marker} exactly once`);
  if (/<\/(script|style)|<!--/i.test(text)) throw new Error(`admin page: ${from} must not contain </script, </style or <!--`);
  return html.replace(marker, () => text);
}

/** The page as served: page.html with page.css and the script pieces inline. */
export function assembleAdminPage(): string {
  const style = `\n${indented(read('page.css'))}`;
  const script = `\n'use strict';\n(() => {\n${SCRIPT_PIECES.map((piece) => indented(read(piece))).join('\n')}})();\n`;
  const withStyle = inline(read('page.html'), '<!--STYLE-->', style, 'page.css');
  return inline(withStyle, '<!--SCRIPT-->', script, SCRIPT_PIECES.join(', '));
}

export function registerAdminPage(app: FastifyInstance): void {
  const html = assembleAdminPage();
  const headers = { ...inlinePageHeaders(html, ["connect-src 'self'", "img-src 'self' data:"]), 'cache-control': 'no-store' };
  const page = async (_request: unknown, reply: FastifyReply) => reply.headers(headers).send(html);
  app.get('/admin', page);
  app.get('/admin/', page);
}
