/**
 * A customer's file as the platform's agents can open it. A message carries
 * at most one: a photo (the largest of its sizes), a document, a video, an
 * audio file, a voice note, an animation or a video note. It is asked for
 * with getFile (which answers its `file_path`), downloaded from
 * `<api_url>/file/bot<token>/<file_path>`, kept with `ctx.files.put` and
 * listed under the caption in the e-mail connector's line format:
 *
 *   [attachment: invoice.pdf, 24 KB] https://gw.example.com/files/…?e=…&s=…
 *   [attachment: film.mp4, 31.2 MB — not kept: over the 10.0 MB limit per file]
 *   [attachment: scan.pdf, 22.0 MB — not kept: Telegram did not hand it out (Bad Request: file is too big)]
 *
 * A file over `attachments.max_file_bytes` (or the message budget) is named,
 * never dropped silently; the size Telegram lists decides first, and the
 * download is capped all the same. Telegram hands a bot files of up to
 * 20 MB: getFile refuses larger ones, which are named as not handed out.
 * With `keep: false` the line is `[attachment: name, size]`, nothing is
 * downloaded. A failure that may pass (no answer, a 5xx, a 429) is thrown:
 * the update is handled again later.
 */
import { extname } from 'node:path';
import { formatSize, type FileStore } from '../../src/connector/api.ts';
import type { BotApi } from './bot-api.ts';
import type { TelegramAttachmentSettings } from './config.ts';
import { TelegramFileTooLargeError, TelegramRequestRefusedError } from './errors.ts';
import { TelegramFile, type FileObject, type PhotoSize, type TelegramMessage } from './telegram-types.ts';

/** A file of a message, before it is downloaded. */
export interface IncomingFile {
  fileId: string;
  /** The file's own name, else one made from its kind and the message id (`photo-42`, extension from its path). */
  name: string;
  /** Whether `name` is made up without an extension, and takes the one of Telegram's `file_path`. */
  needsExtension: boolean;
  contentType: string;
  /** As Telegram lists it; undefined when it does not know. */
  size: number | undefined;
}

/** Each file kind, its default type, and the extension of a made-up name when Telegram's path has none. */
const KINDS = [
  ['document', 'application/octet-stream', ''],
  ['video', 'video/mp4', '.mp4'],
  ['audio', 'audio/mpeg', '.mp3'],
  ['voice', 'audio/ogg', '.ogg'],
  ['animation', 'video/mp4', '.mp4'],
  ['video_note', 'video/mp4', '.mp4'],
] as const;

/** The largest size of a photo: by bytes when Telegram lists them, else by pixels. */
export function largestPhoto(sizes: readonly PhotoSize[]): PhotoSize | undefined {
  const score = (p: PhotoSize) => [p.file_size ?? 0, p.width * p.height] as const;
  return sizes.reduce<PhotoSize | undefined>((best, p) => {
    if (best === undefined) return p;
    const [a, b] = [score(p), score(best)];
    return a[0] > b[0] || (a[0] === b[0] && a[1] > b[1]) ? p : best;
  }, undefined);
}

/** The one file of `message`, if it has one the connector forwards. */
export function fileOf(message: TelegramMessage): IncomingFile | undefined {
  const photo = message.photo && largestPhoto(message.photo);
  if (photo) return { fileId: photo.file_id, name: `photo-${message.message_id}`, needsExtension: true, contentType: 'image/jpeg', size: photo.file_size };
  for (const [kind, type, extension] of KINDS) {
    const file = message[kind] as FileObject | undefined;
    if (file === undefined) continue;
    const own = file.file_name?.trim();
    const name = own || `${kind.replace('_', '-')}-${message.message_id}${extension}`;
    return { fileId: file.file_id, name, needsExtension: !own && extension === '', contentType: file.mime_type || type, size: file.file_size };
  }
  return undefined;
}

export interface FileLineDeps {
  api: BotApi;
  files: FileStore;
  limits: TelegramAttachmentSettings;
}

/** The line naming `file` under the message's text, keeping the file when it fits. */
export async function fileLine(file: IncomingFile, deps: FileLineDeps, signal: AbortSignal): Promise<string> {
  const { limits } = deps;
  const label = (name: string, size: number | undefined) => `attachment: ${name}${size === undefined ? '' : `, ${formatSize(size)}`}`;
  if (!limits.keep) return `[${label(file.name, file.size)}]`;
  const cap = Math.min(limits.max_file_bytes, limits.max_message_bytes);
  const perFile = `over the ${formatSize(cap)} limit per ${cap < limits.max_file_bytes ? 'message' : 'file'}`;
  if (file.size !== undefined && file.size > cap) return `[${label(file.name, file.size)} — not kept: ${perFile}]`;
  let path: string;
  let listed: number | undefined;
  try {
    const found = await deps.api.call('getFile', { file_id: file.fileId }, TelegramFile, signal);
    if (found.file_path === undefined) return `[${label(file.name, file.size)} — not kept: Telegram did not hand it out (no file_path)]`;
    path = found.file_path;
    listed = found.file_size ?? file.size;
  } catch (err) {
    if (err instanceof TelegramRequestRefusedError) return `[${label(file.name, file.size)} — not kept: Telegram did not hand it out (${err.answer.description})]`;
    throw err;
  }
  const name = file.needsExtension ? `${file.name}${extname(path)}` : file.name;
  if (listed !== undefined && listed > cap) return `[${label(name, listed)} — not kept: ${perFile}]`;
  let content: Buffer;
  try {
    content = await deps.api.download(path, cap, signal);
  } catch (err) {
    if (err instanceof TelegramFileTooLargeError) return `[${label(name, listed)} — not kept: ${perFile}]`;
    if (err instanceof TelegramRequestRefusedError) return `[${label(name, listed)} — not kept: Telegram did not hand it out (${err.answer.description})]`;
    throw err;
  }
  const kept = await deps.files.put({ filename: name, contentType: file.contentType, content });
  return `[${label(name, kept.size)}] ${kept.url}`;
}

/** A message's body: its text, then the file line after a blank line (the line alone when there is no text). */
export function withFileLine(text: string, line: string | undefined): string {
  if (line === undefined) return text;
  return text.trim() === '' ? line : `${text}\n\n${line}`;
}
