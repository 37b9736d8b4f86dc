/**
 * A customer's media (image, document, audio, video, sticker) as the
 * platform's agents can open it: its URL asked of Graph (`GET /{media-id}`),
 * downloaded with the access token, kept in the gateway's file store
 * (`ctx.files.put`) and named under the message text with its signed link,
 * in the line format of the e-mail and ticket connectors —
 *
 *   [attachment: invoice.pdf, 24 KB] https://gw.example.com/files/…?e=…&s=…
 *   [attachment: video.mp4, 31.2 MB — not kept: over the 10.0 MB limit per file]
 *   [attachment: image.jpg — not kept: WhatsApp did not hand it out]
 *
 * With `attachments.keep: false` only the name is listed and nothing is
 * downloaded. A file WhatsApp does not hand out (gone, refused as not found)
 * is named as such; any other failure (the token refused, WhatsApp down) is
 * thrown, so the webhook is answered 5xx and Meta sends it again later.
 */
import { formatSize, type FileStore } from '../../src/connector/api.ts';
import type { CloudApi } from './cloud-api.ts';
import { WhatsAppRefusedError, WhatsAppTokenRefusedError } from './graph-errors.ts';
import { MediaTooLargeError } from './graph-http.ts';

export const MEDIA_TYPES = ['image', 'document', 'audio', 'video', 'sticker'] as const;
export type MediaType = (typeof MEDIA_TYPES)[number];

/** The media part of a message (`message.image`, `message.document`, …). */
export interface MediaPart {
  id: string;
  mime_type?: string;
  filename?: string;
  caption?: string;
}

export interface MediaLimits {
  keep: boolean;
  max_file_bytes: number;
}

const EXTENSIONS: Record<string, string> = {
  'image/jpeg': 'jpg', 'image/png': 'png', 'image/webp': 'webp', 'audio/ogg': 'ogg', 'audio/mpeg': 'mp3', 'audio/aac': 'aac',
  'audio/amr': 'amr', 'audio/mp4': 'm4a', 'video/mp4': 'mp4', 'video/3gpp': '3gp', 'application/pdf': 'pdf', 'text/plain': 'txt',
};

/** The media's MIME type without parameters (`audio/ogg; codecs=opus` → `audio/ogg`). */
const bareType = (mime: string | undefined): string | undefined => mime?.split(';')[0]?.trim().toLowerCase() || undefined;

/** A document's own file name; for other media `<type>.<extension of its MIME type>` (`image.jpg`). */
export function mediaFilename(type: MediaType, part: MediaPart): string {
  const own = part.filename?.replace(/[\u0000-\u001f/\\]/g, '').trim();
  if (own) return own.slice(0, 255);
  return `${type}.${EXTENSIONS[bareType(part.mime_type) ?? ''] ?? 'bin'}`;
}

export class InboundMedia {
  readonly #api: CloudApi;
  readonly #files: FileStore;
  readonly #limits: MediaLimits;

  constructor(api: CloudApi, files: FileStore, limits: MediaLimits) {
    this.#api = api;
    this.#files = files;
    this.#limits = limits;
  }

  /** The line naming the media under the message text, the file kept when it may be. */
  async line(type: MediaType, part: MediaPart, signal: AbortSignal): Promise<string> {
    const filename = mediaFilename(type, part);
    if (!this.#limits.keep) return `[attachment: ${filename}]`;
    const perFile = `over the ${formatSize(this.#limits.max_file_bytes)} limit per file`;
    let size: number | undefined;
    try {
      const info = await this.#api.mediaInfo(part.id, signal);
      size = Number(info.file_size);
      if (Number.isFinite(size) && size > this.#limits.max_file_bytes) return `[attachment: ${filename}, ${formatSize(size)} — not kept: ${perFile}]`;
      const { content, contentType } = await this.#api.download(info, this.#limits.max_file_bytes, part.id, signal);
      const type = bareType(part.mime_type) ?? bareType(info.mime_type) ?? contentType;
      const kept = await this.#files.put({ filename, contentType: type, content });
      return `[attachment: ${filename}, ${formatSize(kept.size)}] ${kept.url}`;
    } catch (err) {
      if (err instanceof MediaTooLargeError) return `[attachment: ${filename}${size !== undefined && Number.isFinite(size) ? `, ${formatSize(size)}` : ''} — not kept: ${perFile}]`;
      if (err instanceof WhatsAppRefusedError && !(err instanceof WhatsAppTokenRefusedError)) return `[attachment: ${filename} — not kept: WhatsApp did not hand it out]`;
      throw err;
    }
  }
}
