/**
 * Zendesk's files both ways, through the seam's `TicketHttp`, with its
 * answers sorted into the seam's errors.
 *
 *   download  GET content_url — with the credentials only when it is under the configured account;
 *             Zendesk answers 302 to the file on another host (zdusercontent.com, a signed URL):
 *             each redirect is followed WITHOUT credentials (at most 3). A redirect to the account's
 *             sign-in (/access/…), a web page instead of the file, 401/403/404/410 → TicketAttachmentUnavailableError;
 *             past maxBytes (announced or as it arrives) → TicketAttachmentTooLargeError
 *   upload    POST /api/v2/uploads.json?filename=… with the bytes and the file's own Content-Type
 *             (Zendesk wants the real type) → { upload: { token } }; 413/422 → TicketAttachmentRefusedError
 *
 * Anything else is a `TicketSystemError` with its status (and `Retry-After`
 * on a 429/503), retried by the poller or the note writer. A file's address
 * carries a token of its own: errors name the file, never its path.
 */
import { TicketAttachmentRefusedError, TicketAttachmentUnavailableError, TicketSystemError, type TicketAttachment } from '../ticket/ticket-adapter.ts';
import { parseAnswer } from '../ticket/ticket-http.ts';
import type { ZendeskHttp } from './zendesk-http.ts';
import { Upload } from './zendesk-schemas.ts';

const MAX_REDIRECTS = 3;
const UNAVAILABLE = [401, 403, 404, 410];

export async function downloadFile(http: ZendeskHttp, file: TicketAttachment, maxBytes: number, signal: AbortSignal): Promise<Buffer> {
  if (!URL.canParse(file.url)) throw new TicketAttachmentUnavailableError(`Zendesk at ${http.host}: ${file.filename} has no usable address`);
  try {
    return await http.download(file.url, maxBytes, signal, {
      redirects: MAX_REDIRECTS,
      anonymousElsewhere: true,
      contentType: file.contentType,
      what: `the download of ${file.filename}`,
      refuseHop: (url, hop) => (hop > 0 && http.owns(url.href) && /\/access\//.test(url.pathname) ? 'is behind Zendesk’s sign-in (a private attachment the gateway’s user may not see)' : undefined),
    });
  } catch (err) {
    if (err instanceof TicketSystemError && !(err instanceof TicketAttachmentUnavailableError) && err.status !== undefined && UNAVAILABLE.includes(err.status)) {
      throw new TicketAttachmentUnavailableError(err.message, { status: err.status, ...(err.answer === undefined ? {} : { answer: err.answer }) });
    }
    throw err;
  }
}

export async function uploadFile(http: ZendeskHttp, file: { filename: string; contentType: string; content: Buffer }, signal: AbortSignal): Promise<string> {
  try {
    const response = await http.send('POST', '/api/v2/uploads.json', { query: { filename: file.filename }, raw: file.content, contentType: file.contentType }, signal);
    return parseAnswer(Upload, response.json, `Zendesk at ${http.host}`, 'uploads').upload.token;
  } catch (err) {
    if (err instanceof TicketSystemError && (err.status === 413 || err.status === 422)) {
      throw new TicketAttachmentRefusedError(`${err.message} (the upload of ${file.filename})`, { status: err.status, ...(err.answer === undefined ? {} : { answer: err.answer }) });
    }
    throw err;
  }
}
