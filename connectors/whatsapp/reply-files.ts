/**
 * An agent's files as WhatsApp media: each file and image of
 * `message.attachments` fetched from the platform (`ctx.attachments`) and
 * uploaded (`POST /{phone_number_id}/media`), its media id kept in the
 * reply's progress before the next one, so a retry uploads nothing twice.
 * Limits: `attachments.max_file_bytes` per file and `max_message_bytes` for
 * all files of the reply. A file not sent is named under the reply's text,
 * in the line format of the e-mail and ticket connectors, and the reply
 * still goes:
 *
 *   [attachment not sent: walkthrough.mp4 — over the 10.0 MB limit per file]
 *   [attachment not sent: form.pdf — the platform did not hand it out (TG_ATTACHMENT_UNAVAILABLE)]
 *   [attachment not sent: tool.exe — WhatsApp refused it (code 131053)]
 *
 * Failures that may pass (a fetch, an upload) are thrown: the delivery is
 * retried and resumes with the next file not yet done.
 */
import { AttachmentTooLargeError, formatSize, unfetchableReason, type ConnectorContext, type MessageAttachment } from '../../src/connector/api.ts';
import type { CloudApi } from './cloud-api.ts';
import { WhatsAppRefusedError, WhatsAppTokenRefusedError } from './graph-errors.ts';
import { mediaKind, type UploadedFile } from './reply-parts.ts';

/** What became of one attachment of the reply: uploaded (with its bytes, for the budget), or a line saying why not. */
export type FileStep = { upload: UploadedFile; size: number } | { notSent: string };

export interface ReplyFileLimits {
  max_file_bytes: number;
  max_message_bytes: number;
}

/** The name a line gives the attachment before it is fetched: a file's own, an image's last URL segment. */
function nameOf(a: MessageAttachment): string {
  if (a.type === 'file') return a.name;
  const segment = new URL(a.url).pathname.split('/').pop() ?? '';
  try {
    return decodeURIComponent(segment) || 'image';
  } catch {
    return segment || 'image';
  }
}

/** Resolves each attachment without a step yet, `saved` after each (the progress written), in order. */
export async function uploadReplyFiles(
  attachments: readonly MessageAttachment[],
  steps: FileStep[],
  o: { ctx: ConnectorContext; api: CloudApi; limits: ReplyFileLimits; saved: () => Promise<void>; signal: AbortSignal },
): Promise<void> {
  for (const [index, attachment] of attachments.entries()) {
    if (steps[index] !== undefined) continue;
    const spent = steps.reduce((sum, s) => sum + ('size' in s ? s.size : 0), 0);
    steps[index] = await resolve(attachment, o.limits.max_message_bytes - spent, o);
    await o.saved();
  }
}

async function resolve(attachment: MessageAttachment, budget: number, o: { ctx: ConnectorContext; api: CloudApi; limits: ReplyFileLimits; signal: AbortSignal }): Promise<FileStep> {
  const name = nameOf(attachment);
  const notSent = (why: string): FileStep => ({ notSent: `[attachment not sent: ${name} — ${why}]` });
  const perFile = `over the ${formatSize(o.limits.max_file_bytes)} limit per file`;
  const perMessage = `over the ${formatSize(o.limits.max_message_bytes)} limit per reply`;
  if (budget <= 0) return notSent(perMessage);
  let fetched;
  try {
    fetched = await o.ctx.attachments.fetch(attachment, { maxBytes: Math.min(o.limits.max_file_bytes, budget), signal: o.signal });
  } catch (err) {
    if (err instanceof AttachmentTooLargeError) return notSent(budget < o.limits.max_file_bytes ? perMessage : perFile);
    const never = unfetchableReason(err);
    if (never !== undefined) return notSent(never);
    throw err;
  }
  const kind = mediaKind(fetched.contentType, fetched.content.length, attachment.type);
  // A document's type as WhatsApp takes it; an unknown one goes as a plain binary document.
  const contentType = /^[\w.+-]+\/[\w.+-]+$/.test(fetched.contentType) ? fetched.contentType : 'application/octet-stream';
  try {
    const mediaId = await o.api.upload({ filename: fetched.filename, contentType, content: fetched.content }, o.signal);
    return { upload: { mediaId, kind, filename: fetched.filename }, size: fetched.content.length };
  } catch (err) {
    if (err instanceof WhatsAppRefusedError && !(err instanceof WhatsAppTokenRefusedError)) return notSent(`WhatsApp refused it (code ${err.graphCode ?? err.status ?? '?'})`);
    throw err;
  }
}
