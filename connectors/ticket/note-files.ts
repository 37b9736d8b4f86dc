/**
 * An agent's files as files of its ticket note, through any `TicketAdapter`:
 * each file and image of `message.attachments` fetched from the platform
 * (`ctx.attachments`) and uploaded to the ticket system, for `addNote` to
 * attach in the same change as the text. Limits as for incoming files
 * (`attachments.max_file_bytes` per file, `max_note_bytes` per reply). A file
 * not attached is named under the note's text, and the note still goes:
 *
 *   [attachment not sent: walkthrough.mp4 — over the 10.0 MB limit per file]
 *   [attachment not sent: scan.tiff — Redmine refused it: This file cannot be uploaded because it exceeds …]
 *   [attachment not sent: form.pdf — the platform did not hand it out (TG_ATTACHMENT_UNAVAILABLE)]
 *   [attachment not sent: photo.png — a private note's files would be public in Redmine]
 *
 * A private note gets no files when the ticket system would show them to
 * everyone who sees the ticket (Redmine 5 does; `privateNoteFilesArePublic`). Fetch or upload failures
 * that may pass are thrown (the delivery is retried); an attachment type the
 * gateway does not know is left out.
 */
import { AttachmentTooLargeError, formatSize, knownAttachments, unfetchableReason, type AttachmentFetcher } from '../../src/connector/api.ts';
import type { FileLimits } from './kept-files.ts';
import { TicketAttachmentRefusedError, type TicketAdapter, type TicketUpload } from './ticket-adapter.ts';

export interface NoteFiles {
  uploads: TicketUpload[];
  /** Lines for the files not attached, to go under the text. */
  notSent: string[];
}

export async function noteFiles(
  list: readonly unknown[],
  options: { private: boolean; limits: FileLimits; fetcher: AttachmentFetcher; adapter: TicketAdapter; signal: AbortSignal },
): Promise<NoteFiles> {
  const { limits, fetcher, adapter, signal } = options;
  const out: NoteFiles = { uploads: [], notSent: [] };
  let budget = limits.max_note_bytes;
  for (const attachment of knownAttachments([...list])) {
    const name = attachment.type === 'file' ? attachment.name : 'image';
    const notSent = (why: string) => out.notSent.push(`[attachment not sent: ${name} — ${why}]`);
    if (options.private && adapter.privateNoteFilesArePublic !== false) {
      notSent(`a private note's files would be public in ${adapter.system}`);
      continue;
    }
    let file;
    try {
      file = await fetcher.fetch(attachment, { maxBytes: Math.min(limits.max_file_bytes, budget), signal });
    } catch (err) {
      // Never to be fetched (gone at the platform, or on a host the gateway may not fetch from): named, so the note
      // still goes.
      const never = unfetchableReason(err);
      if (never !== undefined) notSent(never);
      else if (!(err instanceof AttachmentTooLargeError)) throw err;
      else if (budget < limits.max_file_bytes) notSent(`over the ${formatSize(limits.max_note_bytes)} limit per note`);
      else notSent(`over the ${formatSize(Math.min(limits.max_file_bytes, err.maxBytes))} limit per file`);
      continue;
    }
    try {
      out.uploads.push(await adapter.uploadAttachment(file, signal));
      budget -= file.content.length;
    } catch (err) {
      if (!(err instanceof TicketAttachmentRefusedError)) throw err;
      notSent(`${adapter.system} refused it${err.answer ? `: ${err.answer}` : ` (${err.status})`}`);
    }
  }
  return out;
}
