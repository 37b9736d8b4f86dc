/**
 * HTML mail as readable chat text, with html-to-text:
 *
 *   <a href="https://x/inv">the invoice</a>  →  the invoice [https://x/inv]
 *   <a href="https://x">https://x</a>        →  https://x            (no repeat)
 *   <img …>                                  →  (dropped)
 *   <table> rows and cells                   →  aligned columns
 *   <blockquote>…</blockquote>               →  "> " lines (so quote stripping finds them)
 *   <hr>                                     →  a line of dashes
 *
 * One fix-up beforehand: the signature delimiter that Gmail and Thunderbird
 * put into HTML (`-- <br>`) would come out as `--` (html-to-text trims the
 * space); it is turned into `--&nbsp;` so the text keeps the standard `-- `.
 */
import { createRequire } from 'node:module';
import type { HtmlToTextOptions } from 'html-to-text';

/**
 * html-to-text, loaded at the first HTML turned into text (docs/decisions/footprint.md): a gateway that waits does
 * not hold it. Its CommonJS build, by `require`, because that is the copy mailparser loads: an `import` would load
 * the ES build beside it, the library twice. Synchronous, so this function stays so.
 */
let library: typeof import('html-to-text') | undefined;
const convert = (html: string, options: HtmlToTextOptions): string =>
  (library ??= createRequire(import.meta.url)('html-to-text') as typeof import('html-to-text')).convert(html, options);

/** Longer HTML is cut (html-to-text appends "..."); mail bodies past this are newsletters, not questions. */
export const MAX_HTML_CHARS = 2_000_000;

const OPTIONS: HtmlToTextOptions = {
  wordwrap: false,
  limits: { maxInputLength: MAX_HTML_CHARS },
  selectors: [
    { selector: 'a', options: { hideLinkHrefIfSameAsText: true, noAnchorUrl: true } },
    { selector: 'img', format: 'skip' },
    { selector: 'table', format: 'dataTable', options: { uppercaseHeaderCells: false, maxColumnWidth: 80 } },
    { selector: 'h1', options: { uppercase: false } },
    { selector: 'h2', options: { uppercase: false } },
    { selector: 'h3', options: { uppercase: false } },
    { selector: 'h4', options: { uppercase: false } },
    { selector: 'h5', options: { uppercase: false } },
    { selector: 'h6', options: { uppercase: false } },
    // Outlook's hidden preview text and CSS never belong in the chat.
    { selector: 'head', format: 'skip' },
    { selector: 'style', format: 'skip' },
    { selector: 'script', format: 'skip' },
  ],
};

/**
 * `-- ` alone on a line in the HTML source (the space optional: HTML editors
 * drop it): after a tag or a line start, and
 * followed (past closing tags such as Gmail's `</span>`) by a line break or a
 * new block: `-- <br>`, `<span>-- </span><br>`, `<div>-- </div><div>`.
 */
const HTML_SIGNATURE_DELIMITER = /(^|>|\n)([ \t]*)--[ \t]*(?=\s*(?:<\/[a-z0-9]+\s*>\s*)*(?:<br\b|<div\b|<p\b|$))/gi;

export function htmlToReadableText(html: string): string {
  const prepared = html.replace(HTML_SIGNATURE_DELIMITER, '$1$2--&nbsp;');
  return convert(prepared, OPTIONS);
}
