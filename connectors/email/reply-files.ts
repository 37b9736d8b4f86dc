/**
 * An agent's files as real attachments of the e-mail reply: each file and
 * image of `message.attachments` fetched from the platform (`ctx.attachments`)
 * and attached under its name. The same limits as incoming mail
 * (`attachments.max_file_bytes` per file, `max_mail_bytes` per reply): a file
 * over them is not attached and the reply says so under its text
 *
 *   [attachment not sent: scan.tiff — over the 10.0 MB limit per file]
 *
 * so the customer knows to ask; the reply itself is never held back for it.
 * A file the platform no longer hands out (404, 403), or one on a host the
 * gateway may not fetch from (neither the platform's nor in
 * `files.fetch_hosts`), is named the same way; one that cannot be fetched
 * for now fails the attempt (retried); an attachment type the gateway does
 * not know is left out.
 */
import { AttachmentTooLargeError, knownAttachments, unfetchableReason, type AttachmentFetcher } from '../../src/connector/api.ts';
import { formatSize } from './attachments.ts';
import type { AttachmentLimits } from './attachment-files.ts';

export interface ReplyFiles {
  attachments: { filename: string; contentType: string; content: Buffer }[];
  /** Lines for the files not attached, to go under the text. */
  notSent: string[];
}

export async function replyFiles(list: readonly unknown[], limits: AttachmentLimits, fetcher: AttachmentFetcher): Promise<ReplyFiles> {
  const out: ReplyFiles = { attachments: [], notSent: [] };
  let budget = limits.max_mail_bytes;
  for (const attachment of knownAttachments([...list])) {
    const name = attachment.type === 'file' ? attachment.name : 'image';
    const over = (what: string) => out.notSent.push(`[attachment not sent: ${name} — over the ${what}]`);
    try {
      const file = await fetcher.fetch(attachment, { maxBytes: Math.min(limits.max_file_bytes, budget) });
      budget -= file.content.length;
      out.attachments.push(file);
    } catch (err) {
      // Never to be fetched (gone at the platform, or on a host the gateway may not fetch from): named, so the reply
      // still goes.
      const never = unfetchableReason(err);
      if (never !== undefined) {
        out.notSent.push(`[attachment not sent: ${name} — ${never}]`);
        continue;
      }
      if (!(err instanceof AttachmentTooLargeError)) throw err;
      if (budget < limits.max_file_bytes) over(`${formatSize(limits.max_mail_bytes)} limit per mail`);
      else over(`${formatSize(limits.max_file_bytes)} limit per file`);
    }
  }
  return out;
}
