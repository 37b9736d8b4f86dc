/**
 * An agent's reply as the WhatsApp messages that carry it: the text in parts
 * of at most 4,096 characters (WhatsApp's limit of a text body, counted here
 * in UTF-16 code units, which is never fewer than characters), cut at a
 * paragraph, else a line, else a space in the second half of a part, else
 * at the limit (never inside a surrogate pair); then each uploaded file as an
 * `image` (an agent's image, JPEG or PNG, within WhatsApp's 5 MB for images)
 * or a `document` (anything else, with its file name).
 */
import type { OutgoingMessage } from './cloud-api.ts';

export const MAX_TEXT = 4_096;
/** WhatsApp's size limit of an image message; a larger picture goes as a document. */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
const IMAGE_TYPES = new Set(['image/jpeg', 'image/png']);

/** An uploaded file of the reply: its media id, how it is sent and its name. */
export interface UploadedFile {
  mediaId: string;
  kind: 'image' | 'document';
  filename: string;
}

/** How a file is sent: an agent's image as an image when WhatsApp takes it as one, anything else as a document. */
export function mediaKind(contentType: string, size: number, platformType: 'file' | 'image'): 'image' | 'document' {
  return platformType === 'image' && IMAGE_TYPES.has(contentType) && size <= MAX_IMAGE_BYTES ? 'image' : 'document';
}

/** `text` in parts of at most `max` UTF-16 code units, none blank; no part for a blank text. */
export function splitText(text: string, max: number = MAX_TEXT): string[] {
  const parts: string[] = [];
  let rest = text.trim();
  while (rest.length > max) {
    const window = rest.slice(0, max + 1);
    let cut = -1;
    for (const separator of ['\n\n', '\n', ' ']) {
      const at = window.lastIndexOf(separator, max);
      if (at >= max / 2) {
        cut = at;
        break;
      }
    }
    if (cut < 0) {
      cut = max;
      const code = rest.charCodeAt(cut - 1);
      if (code >= 0xd800 && code <= 0xdbff) cut -= 1; // a high surrogate stays with its low one
    }
    const part = rest.slice(0, cut).trimEnd();
    if (part !== '') parts.push(part);
    rest = rest.slice(cut).trimStart();
  }
  if (rest !== '') parts.push(rest);
  return parts;
}

/** The messages of a reply, in the order they are sent: the text's parts, then the files. */
export function replyMessages(text: string, files: readonly UploadedFile[]): OutgoingMessage[] {
  const texts: OutgoingMessage[] = splitText(text).map((body) => ({ type: 'text', text: { body } }));
  const media = files.map((f): OutgoingMessage => (f.kind === 'image' ? { type: 'image', image: { id: f.mediaId } } : { type: 'document', document: { id: f.mediaId, filename: f.filename } }));
  return [...texts, ...media];
}
