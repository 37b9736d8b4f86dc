/**
 * Redmine's files over its REST API, with Redmine's answers sorted into the
 * `TicketAdapter`'s errors:
 *
 *   download  GET content_url (API key only under the configured url, else the same file's
 *             /attachments/download/<id> there); 403/404/410/3xx → TicketAttachmentUnavailableError
 *   upload    POST /uploads.json?filename=… raw bytes → { upload: { token } };
 *             422 (attachment_max_size, extensions) / 413 (a proxy's body limit) → TicketAttachmentRefusedError
 *
 * Anything else stays a `TicketSystemError` with its status (retried by the
 * poller or the note writer like any failure).
 */
import type { RedmineHttp, RedmineResponse } from './redmine-http.ts';
import { TicketAttachmentRefusedError, TicketAttachmentUnavailableError, TicketSystemError, type TicketAttachment } from '../ticket/ticket-adapter.ts';

/** Statuses that say Redmine does not hand the file out: gone, forbidden, or sent to the login page. */
const unavailable = (status: number) => status === 403 || status === 404 || status === 410 || (status >= 300 && status <= 399);

/**
 * The file's bytes, at most `maxBytes`. A `content_url` outside the
 * configured url (a Redmine behind a proxy naming its own address) never gets
 * the API key: the file is read from under the configured url instead.
 */
export async function downloadFile(http: RedmineHttp, attachment: TicketAttachment, maxBytes: number, signal: AbortSignal): Promise<Buffer> {
  const url = http.owns(attachment.url) ? attachment.url : `${http.baseUrl}/attachments/download/${encodeURIComponent(attachment.id)}`;
  try {
    return await http.download(url, maxBytes, signal);
  } catch (err) {
    if (err instanceof TicketSystemError && err.status !== undefined && unavailable(err.status)) {
      throw new TicketAttachmentUnavailableError(err.message, { status: err.status, answer: err.answer, cause: err });
    }
    throw err;
  }
}

/** Uploads the bytes for a later note; Redmine's refusal of this file is a `TicketAttachmentRefusedError` with its words. */
export async function uploadFile(http: RedmineHttp, file: { filename: string; content: Buffer }, signal: AbortSignal): Promise<RedmineResponse> {
  try {
    return await http.upload(file.filename, file.content, signal);
  } catch (err) {
    if (err instanceof TicketSystemError && (err.status === 422 || err.status === 413)) {
      throw new TicketAttachmentRefusedError(err.message, { status: err.status, answer: err.answer, cause: err });
    }
    throw err;
  }
}
