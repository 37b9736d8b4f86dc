/**
 * The files of a mail as the chat shows them, one line each under the text:
 *
 *   [attachment: invoice.pdf, 24 KB]
 *
 * Sizes as `formatSize` of the connector API writes them (`512 B`, `24 KB`,
 * `1.4 MB`).
 *
 * Not listed: images the HTML shows inline (`<img src="cid:…">` pointing at
 * the part's Content-ID) — they are part of the text, not files. A non-image
 * part referenced the same way (Apple Mail previews PDFs so) is still listed.
 *
 * Listed under a made-up name: parts without one (`attachment-1.bin`,
 * `attachment-2.pdf`, numbered in order, the extension from the type).
 */
import type { Attachment } from 'mailparser';
import { formatSize } from '../../src/connector/api.ts';
import type { MailAttachment, MailFile } from './parsed-mail.ts';

export { formatSize };

export function attachmentLine(attachment: MailAttachment): string {
  return `[attachment: ${attachment.filename}, ${formatSize(attachment.size)}]`;
}

const EXTENSIONS: Readonly<Record<string, string>> = {
  'application/pdf': 'pdf',
  'application/zip': 'zip',
  'application/json': 'json',
  'application/msword': 'doc',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'application/vnd.ms-excel': 'xls',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'image/heic': 'heic',
  'text/plain': 'txt',
  'text/html': 'html',
  'text/csv': 'csv',
  'text/calendar': 'ics',
  'message/rfc822': 'eml',
  'message/delivery-status': 'txt',
  'message/disposition-notification': 'txt',
  'text/rfc822-headers': 'txt',
};

/** A name for a part that has none: `attachment-<n>.<ext>`, `.bin` for unknown types. */
export function fallbackName(contentType: string, n: number): string {
  return `attachment-${n}.${EXTENSIONS[contentType] ?? 'bin'}`;
}

/** A file name safe to show on one line: no control characters, no path, single spaces. */
function cleanName(name: string | undefined): string | undefined {
  const base = name
    ?.replace(/[\u0000-\u001f\u007f]/g, ' ')
    .split(/[\\/]/)
    .pop()
    ?.replace(/\s+/g, ' ')
    .trim();
  return base ? base : undefined;
}

/** The Content-IDs the HTML shows inline as `cid:` images. */
export function referencedContentIds(html: string | false | undefined): Set<string> {
  const ids = new Set<string>();
  if (!html) return ids;
  for (const match of html.matchAll(/\bcid:([^'"\s)>]{1,256})/gi)) {
    const id = match[1]!;
    ids.add(id.toLowerCase());
    try {
      ids.add(decodeURIComponent(id).toLowerCase());
    } catch {
      // a stray % in the id: the raw form is enough
    }
  }
  return ids;
}

/** The attachments worth listing, in the mail's order; and every file with its bytes, inline images too. */
export function listAttachments(attachments: readonly Attachment[], html: string | false | undefined): { listed: MailAttachment[]; files: MailFile[] } {
  const inline = referencedContentIds(html);
  const listed: MailAttachment[] = [];
  const files: MailFile[] = [];
  let unnamed = 0;
  let unnamedInline = 0;
  for (const attachment of attachments) {
    const contentType = (attachment.contentType || 'application/octet-stream').toLowerCase();
    // Only images: Apple Mail also shows a PDF inline through a cid: link, and it is still a file.
    const isInline = contentType.startsWith('image/') && attachment.cid !== undefined && inline.has(attachment.cid.toLowerCase());
    const unnamedName = () => (isInline ? fallbackName(contentType, ++unnamedInline).replace('attachment-', 'inline-image-') : fallbackName(contentType, ++unnamed));
    const filename = cleanName(attachment.filename) ?? unnamedName();
    const file = { filename, contentType, size: attachment.size ?? attachment.content?.length ?? 0 };
    if (!isInline) listed.push(file);
    if (Buffer.isBuffer(attachment.content)) files.push({ ...file, content: attachment.content, inline: isInline });
  }
  return { listed, files };
}
