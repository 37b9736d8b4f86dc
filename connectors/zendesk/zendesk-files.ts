/**
 * Zendesk's files both ways, with its answers sorted into the seam's errors.
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
 * on a 429/503), retried by the poller or the note writer. These two requests
 * are made here, not through `TicketHttp`, which neither follows a redirect
 * nor sends a raw body with a type of its own.
 */
import { parseRetryAfter } from '../../src/connector/api.ts';
import { TicketAttachmentRefusedError, TicketAttachmentUnavailableError, TicketSystemError, type TicketAttachment } from '../ticket/ticket-adapter.ts';
import { FILE_TIMEOUT_MS, parseAnswer, readCapped, shortAnswer } from '../ticket/ticket-http.ts';
import { statusHint, zendeskAnswer, type ZendeskHttp } from './zendesk-http.ts';
import { Upload } from './zendesk-schemas.ts';

const MAX_REDIRECTS = 3;
const ERROR_BODY_MAX = 64 * 1024;

export async function downloadFile(http: ZendeskHttp, file: TicketAttachment, maxBytes: number, timeoutMs: number, signal: AbortSignal): Promise<Buffer> {
  const unavailable = (why: string, status?: number) => new TicketAttachmentUnavailableError(`Zendesk at ${http.host}: ${file.filename} ${why}`, status === undefined ? {} : { status });
  let url: URL;
  try {
    url = new URL(file.url);
  } catch {
    throw unavailable('has no usable address');
  }
  // The credentials go with the first request only, and only to the configured account.
  let headers: Record<string, string> = http.credentialFor(url.href) ?? {};
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw unavailable(`is served from a ${url.protocol} address`);
    if (http.owns(url.href) && /\/access\//.test(url.pathname) && hop > 0) throw unavailable('is behind Zendesk’s sign-in (a private attachment the gateway’s user may not see)', 401);
    // Named without its path: a file's address carries a token of its own.
    const response = await request(http, `the download of ${file.filename}`, url, { method: 'GET', headers, redirect: 'manual' }, timeoutMs, signal);
    if (response.status >= 300 && response.status <= 399) {
      await response.body?.cancel().catch(() => {});
      const location = response.headers.get('location');
      if (!location) throw unavailable(`was answered ${response.status} without a Location`, response.status);
      url = new URL(location, url);
      headers = {};
      continue;
    }
    if (response.status < 200 || response.status > 299) {
      const text = (await readCapped(response, ERROR_BODY_MAX, '').catch(() => Buffer.alloc(0))).toString('utf8');
      const said = { status: response.status, answer: zendeskAnswer(text) ?? shortAnswer(text), retryAfterMs: parseRetryAfter(response.headers.get('retry-after') ?? undefined) };
      if ([401, 403, 404, 410].includes(response.status)) throw new TicketAttachmentUnavailableError(`Zendesk at ${http.host}: ${file.filename} was answered ${response.status}`, said);
      throw new TicketSystemError(`Zendesk at ${http.host}: downloading ${file.filename} was answered ${response.status}${statusHint(response.status)}`, said);
    }
    if (/^text\/html/i.test(response.headers.get('content-type') ?? '') && !/html/i.test(file.contentType)) {
      await response.body?.cancel().catch(() => {});
      throw unavailable('was answered with a web page instead of the file (a sign-in?)');
    }
    return readCapped(response, maxBytes, `Zendesk at ${http.host}: ${file.filename}`);
  }
  throw unavailable(`was redirected more than ${MAX_REDIRECTS} times`);
}

export async function uploadFile(http: ZendeskHttp, file: { filename: string; contentType: string; content: Buffer }, timeoutMs: number, signal: AbortSignal): Promise<string> {
  const url = new URL(`${http.baseUrl}/api/v2/uploads.json`);
  url.searchParams.set('filename', file.filename);
  const init = {
    method: 'POST',
    headers: { accept: 'application/json', 'content-type': file.contentType || 'application/octet-stream', ...http.credentialFor(url.href) },
    body: new Uint8Array(file.content),
  };
  const response = await request(http, 'POST /api/v2/uploads.json', url, init, timeoutMs, signal);
  http.noteDate(response.headers.get('date'));
  const text = await response.text();
  if (response.status < 200 || response.status > 299) {
    const said = { status: response.status, answer: zendeskAnswer(text) ?? shortAnswer(text), retryAfterMs: parseRetryAfter(response.headers.get('retry-after') ?? undefined) };
    const message = `Zendesk at ${http.host} answered the upload of ${file.filename} with ${response.status}${statusHint(response.status)}`;
    if (response.status === 413 || response.status === 422) throw new TicketAttachmentRefusedError(message, said);
    throw new TicketSystemError(message, said);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new TicketSystemError(`Zendesk at ${http.host} answered the upload of ${file.filename} with a body that is not JSON`, { status: response.status, malformed: true });
  }
  return parseAnswer(Upload, json, `Zendesk at ${http.host}`, 'uploads').upload.token;
}

/** One request within the timeout (a file's: at least a minute); not reached: a `TicketSystemError` without status. */
async function request(http: ZendeskHttp, what: string, url: URL, init: RequestInit, timeoutMs: number, signal: AbortSignal): Promise<Response> {
  const limit = Math.max(timeoutMs, FILE_TIMEOUT_MS);
  try {
    return await fetch(url, { ...init, redirect: 'manual', signal: AbortSignal.any([signal, AbortSignal.timeout(limit)]) });
  } catch (err) {
    if (signal.aborted) throw err;
    const cause = (err as { cause?: { code?: string } }).cause;
    const reason = (err as Error).name === 'TimeoutError' ? `no answer within ${limit} ms` : (cause?.code ?? (err as Error).message);
    throw new TicketSystemError(`cannot reach Zendesk for ${http.host} (${what} at ${url.host}): ${reason}`, { cause: err });
  }
}
