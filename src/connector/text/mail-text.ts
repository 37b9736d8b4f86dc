/**
 * The decoded text of a mail, made fit for a chat: which part to read, and
 * the clean-up every text gets.
 *
 * The text/plain part is read when it holds anything; otherwise the HTML
 * part is converted (see html-text.ts). An empty text/plain next to a full
 * HTML part is common (some mobile clients), so "holds anything" matters.
 *
 * Clean-up:
 *   - line ends LF;
 *   - C1 control characters (U+0080–U+009F) become their Windows-1252
 *     characters: mail labelled ISO-8859-1 is very often really
 *     Windows-1252 (curly quotes, €), as every browser and mail client assumes;
 *   - no-break spaces become spaces; zero-width spaces and BOMs go;
 *   - Outlook's `[cid:image001.png@01DA…]` placeholders for inline images go;
 *   - trailing blanks go (but a signature delimiter keeps its `-- `);
 *   - runs of blank lines become one, and the text is trimmed.
 */
import { htmlToReadableText } from './html-text.ts';

const cp1252 = new TextDecoder('windows-1252');
const C1 = /[\u0080-\u009f]/g;
const fromC1 = (char: string): string => cp1252.decode(Uint8Array.of(char.charCodeAt(0)));

export function normaliseText(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(C1, fromC1)
    .replace(/\u00a0/g, ' ')
    .replace(/[\u200b\ufeff]/g, '')
    .replace(/\[cid:[^\]\s]+\]/g, '')
    .split('\n')
    .map((line) => (/^-- \s*$/.test(line) ? '-- ' : line.trimEnd()))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .replace(/^\n+/, '')
    .trimEnd();
}

/** The readable text of a mail's parts: the plain text when it holds anything, else the HTML converted. */
export function readableText(text: string | undefined, html: string | false | undefined): string {
  const plain = normaliseText(text ?? '');
  if (plain.trim() !== '' || !html) return plain;
  return normaliseText(htmlToReadableText(html));
}
