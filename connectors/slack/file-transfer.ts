/**
 * Bytes to and from Slack's file service, outside the Web API's JSON:
 *
 *   download  GET url_private_download with the bot token as Bearer (only where `tokenGoesTo` allows).
 *             Slack answers a caller it does not let see the file with a redirect to its sign-in or a
 *             web page: a 3xx, an HTML page for a file that is no web page, 401/403/404/410 → the file
 *             is not handed out (SlackFileUnavailableError); past maxBytes, by Content-Length or as it
 *             arrives, SlackFileTooLargeError (never more held); 429/5xx/no answer → SlackUnavailableError
 *   upload    POST the raw bytes to the upload_url files.getUploadURLExternal gave (Slack answers 200
 *             "OK - <length>"); a 4xx refuses the file, anything else may pass
 *
 * Both may take a minute even when `timeout_ms` is shorter.
 */
import { parseRetryAfter, readCapped } from '../../src/connector/api.ts';
import type { SlackApi } from './slack-api.ts';
import { SlackFileTooLargeError, SlackFileUnavailableError, SlackRateLimitedError, SlackRefusedError, SlackUnavailableError } from './slack-errors.ts';

/** A download or upload may take at least this long. */
export const FILE_TIMEOUT_MS = 60_000;

export async function downloadFile(api: SlackApi, file: { name: string; url: string; mimetype: string }, maxBytes: number, signal: AbortSignal): Promise<Buffer> {
  const unavailable = (why: string) => new SlackFileUnavailableError(`Slack at ${api.host}: ${file.name} ${why}`);
  let url: URL;
  try {
    url = new URL(file.url);
  } catch {
    throw unavailable('has no usable address');
  }
  if (!api.tokenGoesTo(url)) throw unavailable(`is on ${url.host}, not on Slack’s file host: the bot token is not sent there`);
  const response = await send(api, `the download of ${file.name}`, url, { method: 'GET', headers: api.authorizationFor(url) }, signal);
  const status = response.status;
  if (status >= 300 && status < 400) {
    await response.body?.cancel().catch(() => {});
    throw unavailable(`was answered ${status} (a redirect to the sign-in: the bot may not see it; is files:read granted?)`);
  }
  if (status === 429) {
    await response.body?.cancel().catch(() => {});
    const retryAfterMs = parseRetryAfter(response.headers.get('retry-after') ?? undefined) ?? 30_000;
    throw new SlackRateLimitedError(`Slack at ${api.host} rate-limited the download of ${file.name} (429)`, retryAfterMs);
  }
  if (status !== 200) {
    await response.body?.cancel().catch(() => {});
    if ([401, 403, 404, 410].includes(status)) throw unavailable(`was answered ${status}`);
    throw new SlackUnavailableError(`Slack at ${api.host} answered the download of ${file.name} with ${status}`, status);
  }
  if (/^text\/html/i.test(response.headers.get('content-type') ?? '') && !/html/i.test(file.mimetype)) {
    await response.body?.cancel().catch(() => {});
    throw unavailable('was answered with a web page instead of the file (the sign-in: the bot may not see it)');
  }
  const what = `Slack at ${api.host}: ${file.name}`;
  return readCapped(response, maxBytes, (declared) => new SlackFileTooLargeError(declared === undefined ? `${what} is over ${maxBytes} bytes` : `${what} is ${declared} bytes, over ${maxBytes}`));
}

/** Sends the file's bytes to an upload URL of files.getUploadURLExternal. */
export async function uploadBytes(api: SlackApi, uploadUrl: string, file: { filename: string; contentType: string; content: Buffer }, signal: AbortSignal): Promise<void> {
  const url = new URL(uploadUrl);
  const headers = { 'content-type': file.contentType || 'application/octet-stream', ...api.authorizationFor(url) };
  const response = await send(api, `the upload of ${file.filename}`, url, { method: 'POST', headers, body: new Uint8Array(file.content) }, signal);
  const text = await response.text().catch(() => '');
  if (response.status === 200) return;
  const said = `${response.status}${text ? `: ${text.slice(0, 200)}` : ''}`;
  if (response.status === 429) {
    throw new SlackRateLimitedError(`Slack at ${api.host} rate-limited the upload of ${file.filename} (429)`, parseRetryAfter(response.headers.get('retry-after') ?? undefined) ?? 30_000);
  }
  if (response.status >= 400 && response.status < 500 && response.status !== 408) throw new SlackRefusedError('the file upload', `HTTP ${response.status}`, `${file.filename} was refused (${said})`);
  throw new SlackUnavailableError(`Slack at ${api.host} answered the upload of ${file.filename} with ${said}`, response.status);
}

async function send(api: SlackApi, what: string, url: URL, init: RequestInit, signal: AbortSignal): Promise<Response> {
  const limit = Math.max(api.timeoutMs, FILE_TIMEOUT_MS);
  try {
    return await fetch(url, { ...init, redirect: 'manual', signal: AbortSignal.any([signal, AbortSignal.timeout(limit)]) });
  } catch (err) {
    if (signal.aborted) throw signal.reason;
    const reason = (err as Error).name === 'TimeoutError' ? `no answer within ${limit} ms` : ((err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message);
    throw new SlackUnavailableError(`cannot reach Slack at ${url.host} for ${what}: ${reason}`, undefined, { cause: err });
  }
}
