/**
 * A mail's files as the agent can open them: each kept in the gateway's file
 * store (`ctx.files.put`) and listed under the text with its signed link —
 *
 *   [attachment: invoice.pdf, 24 KB] https://gw.example.com/files/…?e=…&s=…
 *   [inline image: logo.png, 4 KB] https://gw.example.com/files/…
 *   [attachment: scan.tiff, 31.2 MB — not kept: over the 10 MB limit per file]
 *
 * Inline images (the HTML's `cid:` pictures) get a link too, so the picture a
 * customer pasted into the mail is not lost with the HTML. Limits
 * (`attachments.max_file_bytes`, `attachments.max_mail_bytes`): a file over
 * one is listed as too large, never dropped silently; the files of one mail
 * are kept in order until the mail's budget is spent. With `attachments.keep:
 * false` the list is the plain one of attachments.ts, inline images left out.
 */
import type { FileStore } from '../../src/connector/api.ts';
import { attachmentLine, formatSize } from './attachments.ts';
import type { MailFile } from './parsed-mail.ts';

export interface AttachmentLimits {
  keep: boolean;
  max_file_bytes: number;
  max_mail_bytes: number;
}

/** The lines listing `files` under the text, keeping each that fits in the store. */
export async function keptFileLines(files: readonly MailFile[], limits: AttachmentLimits, store: FileStore): Promise<string[]> {
  if (!limits.keep) return files.filter((f) => !f.inline).map(attachmentLine);
  const lines: string[] = [];
  let budget = limits.max_mail_bytes;
  for (const file of files) {
    const label = `${file.inline ? 'inline image' : 'attachment'}: ${file.filename}, ${formatSize(file.size)}`;
    const over =
      file.size > limits.max_file_bytes
        ? `over the ${formatSize(limits.max_file_bytes)} limit per file`
        : file.size > budget
          ? `over the ${formatSize(limits.max_mail_bytes)} limit per mail`
          : undefined;
    if (over !== undefined) {
      lines.push(`[${label} — not kept: ${over}]`);
      continue;
    }
    const kept = await store.put({ filename: file.filename, contentType: file.contentType, content: file.content });
    budget -= file.size;
    lines.push(`[${label}] ${kept.url}`);
  }
  return lines;
}
