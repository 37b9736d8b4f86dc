/**
 * An agent's files into the Slack thread, by Slack's upload flow
 * (https://api.slack.com/messaging/files#uploading_files):
 *
 *   1. fetched from the platform (`ctx.attachments`, at most `max_file_bytes`, and what is left of
 *      `max_message_bytes` for the reply)
 *   2. files.getUploadURLExternal {filename, length}  → {upload_url, file_id}
 *   3. the bytes POSTed to upload_url                  (file-transfer.ts)
 *   4. files.completeUploadExternal {files: [{id, title}], channel_id, thread_ts}: all of the reply's
 *      files shared in the thread at once, as one message of the app
 *
 * Steps 1–3 are `uploadFile`, one file at a time (its file id is recorded
 * before step 4, so a retry shares what was uploaded instead of uploading it
 * again); step 4 is `shareFiles`. A file not sent is named under the reply's
 * text and the reply still goes —
 *
 *   [attachment not sent: walkthrough.mp4 — over the 10.0 MB limit per file]
 *   [attachment not sent: form.pdf — the platform did not hand it out (TG_ATTACHMENT_UNAVAILABLE)]
 *   [attachment not sent: tool.exe — Slack refused it: file_type_not_allowed]
 *
 * A failure that may pass (a 5xx, a 429, no answer) is thrown: the delivery
 * is retried. A refused token, channel or scope is thrown as well: it
 * dead-letters the reply.
 */
import { AttachmentTooLargeError, formatSize, unfetchableReason, type AttachmentFetcher, type MessageAttachment } from '../../src/connector/api.ts';
import type { FileLimits } from './config.ts';
import { uploadBytes } from './file-transfer.ts';
import type { SlackApi } from './slack-api.ts';
import { SlackAuthRefusedError, SlackChannelArchivedError, SlackChannelNotFoundError, SlackNotInChannelError, SlackRefusedError } from './slack-errors.ts';
import type { FileStep } from './reply-progress.ts';
import { CompleteUpload, UploadUrl } from './slack-schemas.ts';

/** Refusals that are about the app or the channel, not the file: they end the reply's delivery. */
const NOT_THE_FILE = [SlackAuthRefusedError, SlackNotInChannelError, SlackChannelNotFoundError, SlackChannelArchivedError];

export interface FileContext {
  api: SlackApi;
  fetcher: AttachmentFetcher;
  limits: FileLimits;
  signal: AbortSignal;
}

/** Fetches and uploads one file (steps 1–3); `budget` is what is left of the reply's bytes. */
export async function uploadFile(attachment: MessageAttachment, budget: number, c: FileContext): Promise<FileStep> {
  const name = attachment.type === 'file' ? attachment.name : 'image';
  const notSent = (why: string) => ({ notSent: `[attachment not sent: ${name} — ${why}]` });
  let file;
  try {
    file = await c.fetcher.fetch(attachment, { maxBytes: Math.max(1, Math.min(c.limits.max_file_bytes, budget)), signal: c.signal });
  } catch (err) {
    const never = unfetchableReason(err);
    if (never !== undefined) return notSent(never);
    if (!(err instanceof AttachmentTooLargeError)) throw err;
    return notSent(budget < c.limits.max_file_bytes ? `over the ${formatSize(c.limits.max_message_bytes)} limit per message` : `over the ${formatSize(c.limits.max_file_bytes)} limit per file`);
  }
  if (file.content.length === 0) return notSent('an empty file (Slack takes none)');
  try {
    const ticket = await c.api.call('files.getUploadURLExternal', { filename: file.filename, length: file.content.length }, UploadUrl, { signal: c.signal });
    await uploadBytes(c.api, ticket.upload_url, file, c.signal);
    return { id: ticket.file_id, title: file.filename, bytes: file.content.length };
  } catch (err) {
    if (!(err instanceof SlackRefusedError) || NOT_THE_FILE.some((kind) => err instanceof kind)) throw err;
    return notSent(`Slack refused it: ${err.slackError}`);
  }
}

/** Shares the uploaded files in the thread (step 4). */
export async function shareFiles(api: SlackApi, files: readonly { id: string; title: string }[], channel: string, rootTs: string, signal: AbortSignal): Promise<void> {
  await api.call('files.completeUploadExternal', { files: files.map((f) => ({ id: f.id, title: f.title })), channel_id: channel, thread_ts: rootTs }, CompleteUpload, { signal, json: true });
}
