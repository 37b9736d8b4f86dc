/**
 * Files in and out of the counterpart, by Slack's references:
 *
 * Uploading (https://api.slack.com/messaging/files#uploading_files,
 * https://api.slack.com/methods/files.getUploadURLExternal, …/files.completeUploadExternal):
 *
 *   files.getUploadURLExternal {filename, length}  → {upload_url, file_id}; no filename: invalid_arguments;
 *                                                    length 0 or absent: missing_argument; over the largest
 *                                                    upload: file_upload_size_restricted
 *   POST <upload_url> the bytes, raw or as a multipart form's file part → 200 "OK - <length>"
 *   files.completeUploadExternal {files: [{id, title}], channel_id, thread_ts, initial_comment}
 *                                                  → {files: [{id, title}]}: the files shared in the channel
 *                                                    (in the thread) as one message of the caller; a file id of
 *                                                    no upload, one whose bytes never came, or one completed
 *                                                    before: file_not_found; channel_id of no channel the
 *                                                    caller sees: invalid_channel; one it is not in:
 *                                                    posting_to_channel_denied
 *
 * Downloading (https://api.slack.com/types/file#auth): `url_private` and
 * `url_private_download` answer the file only with `Authorization: Bearer`
 * and a token whose user may see it; any other caller is redirected (302)
 * to the sign-in page, a web page, as Slack does.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { SlackApiError, jsonArg, rootOf, str, visibleChannel, type ApiContext, type Method } from './slack-methods.ts';
import type { SlackWorkspace } from './slack-workspace.ts';

export const uploadMethods: Record<string, Method> = {
  'files.getUploadURLExternal': ({ args, caller }, c) => {
    const filename = str(args.filename);
    if (filename === undefined) throw new SlackApiError('invalid_arguments', { response_metadata: { messages: ['[ERROR] missing required field: filename'] } });
    const length = Number(str(args.length) ?? 0);
    if (!Number.isInteger(length) || length <= 0) throw new SlackApiError('missing_argument');
    if (length > c.maxUploadBytes) throw new SlackApiError('file_upload_size_restricted');
    const fileId = c.ws.id('F0');
    c.ws.uploads.set(fileId, { fileId, filename, length, user: caller.id, completed: false });
    return { upload_url: `${c.root}/upload/v1/${fileId}`, file_id: fileId };
  },

  'files.completeUploadExternal': ({ args, caller }, c) => {
    const list = jsonArg(args.files);
    if (!Array.isArray(list) || list.length === 0 || list.some((f) => typeof (f as { id?: unknown })?.id !== 'string')) {
      throw new SlackApiError('invalid_arguments', { response_metadata: { messages: ['[ERROR] files: expected an array of {"id", "title"}'] } });
    }
    const channelId = str(args.channel_id);
    const channel = channelId === undefined ? undefined : visibleChannel(c, caller, channelId, 'invalid_channel');
    if (channel !== undefined && (!channel.members.has(caller.id) || channel.archived)) throw new SlackApiError('posting_to_channel_denied');
    const tickets = (list as { id: string; title?: unknown }[]).map((f) => ({ ticket: c.ws.uploads.get(f.id), title: str(f.title) }));
    if (tickets.some(({ ticket }) => ticket === undefined || ticket.completed || ticket.bytes === undefined || ticket.user !== caller.id)) throw new SlackApiError('file_not_found');
    const ids: string[] = [];
    for (const { ticket, title } of tickets) {
      ticket!.completed = true;
      const file = c.ws.addFile({ id: ticket!.fileId, name: ticket!.filename, title: title ?? ticket!.filename, mimetype: ticket!.contentType ?? 'application/octet-stream', content: ticket!.bytes!, user: caller.id });
      ids.push(file.id);
    }
    if (channel !== undefined) {
      const threadTs = rootOf(c, channel.id, str(args.thread_ts));
      const message = c.ws.addMessage({
        channel: channel.id,
        user: caller.id,
        ...(caller.botId ? { botId: caller.botId } : {}),
        ...(caller.appId ? { appId: caller.appId } : {}),
        text: str(args.initial_comment) ?? '',
        ...(threadTs ? { threadTs } : {}),
        files: ids,
      });
      c.emit(message);
    }
    return { files: ids.map((id) => ({ id, title: c.ws.files.get(id)!.title })) };
  },
};

/** `POST /upload/v1/<file id>`: the bytes of an upload (raw, or a multipart form's file part). */
export function receiveUpload(ws: SlackWorkspace, fileId: string, headers: IncomingHttpHeaders, body: Buffer): { status: number; text: string } {
  const ticket = ws.uploads.get(fileId);
  if (ticket === undefined || ticket.completed) return { status: 404, text: 'upload not found' };
  const type = headers['content-type'] ?? 'application/octet-stream';
  const part = /^multipart\/form-data/i.test(type) ? multipartFile(type, body) : { bytes: body, contentType: type.split(';')[0]!.trim() };
  if (part === undefined) return { status: 400, text: 'no file part in the form' };
  ticket.bytes = part.bytes;
  ticket.contentType = part.contentType;
  return { status: 200, text: `OK - ${part.bytes.length}` };
}

function multipartFile(type: string, body: Buffer): { bytes: Buffer; contentType: string } | undefined {
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (!boundary) return undefined;
  const marker = Buffer.from(`--${boundary}`);
  let at = body.indexOf(marker);
  while (at >= 0) {
    const next = body.indexOf(marker, at + marker.length);
    if (next < 0) return undefined;
    const part = body.subarray(at + marker.length + 2, next - 2);
    const split = part.indexOf('\r\n\r\n');
    const head = part.subarray(0, split).toString('utf8');
    if (/filename=/i.test(head)) return { bytes: Buffer.from(part.subarray(split + 4)), contentType: /content-type:\s*([^\r\n;]+)/i.exec(head)?.[1]?.trim() ?? 'application/octet-stream' };
    at = next;
  }
  return undefined;
}

/** `GET /files-pri/<team>-<file id>/[download/]<name>`: the file for a caller who may see it, else the sign-in. */
export function privateFile(ws: SlackWorkspace, root: string, path: string, authorization: string | undefined): { status: number; headers: Record<string, string>; body: Buffer } {
  const match = /^\/files-pri\/[A-Z0-9]+-([A-Z0-9]+)\//.exec(path);
  const file = match ? ws.files.get(match[1]!) : undefined;
  const token = /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];
  const user = token !== undefined && !ws.revoked.has(token) ? ws.tokens.get(token) : undefined;
  if (file === undefined || user === undefined || !ws.canSee(user, file)) {
    return { status: 302, headers: { location: `${root}/?redirect=${encodeURIComponent(path)}` }, body: Buffer.alloc(0) };
  }
  const download = path.includes('/download/');
  return {
    status: 200,
    headers: { 'content-type': file.mimetype, 'content-length': String(file.content.length), ...(download ? { 'content-disposition': `attachment; filename="${encodeURIComponent(file.name)}"` } : {}) },
    body: file.content,
  };
}

export const SIGN_IN_PAGE = Buffer.from('<!DOCTYPE html><html><head><title>Sign in | Slack</title></head><body><form action="/signin"></form></body></html>');
