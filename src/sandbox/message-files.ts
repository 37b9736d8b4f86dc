/**
 * Files and images an agent attaches to a message (control API only; the
 * platform's documents show no upload for unified messaging). The bytes are
 * kept in the sandbox's state and served without credentials at
 * `/_sandbox/files/<id>/<name>`, an unguessable URL as a CDN link would be,
 * with the content type given. Messages carry them as spec 03's `file` and
 * `image` chunks (`{type:'file', url, name, size}`, `{type:'image', url}`),
 * the URL absolute on the address the request used (as avatar URLs are), so
 * a gateway whose platform.url is that address may download them.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { MessageAttachment } from '../platform/schemas/unified-messaging.ts';
import { SandboxNotFoundError } from './errors.ts';
import { parsePayload } from './http-errors.ts';
import type { MessageAttachmentRecord } from './model.ts';
import type { SandboxState } from './state.ts';

export const FILES_PATH = '/_sandbox/files';
export const MAX_ATTACHMENTS = 10;
/** The request body limit of a message with attachments (base64 makes 3 bytes 4). */
export const ATTACHMENT_BODY_LIMIT = 64 * 1024 * 1024;
const MAX_NAME = 255;
const FALLBACK_TYPE = 'application/octet-stream';
const TOKEN = "[a-z0-9!#$%&'*+.^_`|~-]+";
const MEDIA_TYPE = new RegExp(`^${TOKEN}/${TOKEN}(\\s*;.*)?$`, 'i');

const AttachmentInput = z.strictObject({
  type: z.enum(['file', 'image']),
  name: z
    .string()
    .trim()
    .min(1, { error: 'This field may not be blank.' })
    .max(MAX_NAME, { error: `Ensure this field has no more than ${MAX_NAME} characters.` })
    .refine((n) => !/[/\\\p{Cc}]/u.test(n), { error: 'A file name without slashes or control characters.' })
    .optional(),
  content_type: z.string().regex(MEDIA_TYPE, { error: 'Enter a media type such as application/pdf.' }).optional(),
  content_base64: z.base64({ error: 'Enter the content as base64.' }),
});

/** `attachments` of the control API's agent message: at most 10. */
export const AttachmentInputs = z
  .array(AttachmentInput)
  .max(MAX_ATTACHMENTS, { error: `Ensure this field has no more than ${MAX_ATTACHMENTS} elements.` });
export type AttachmentInput = z.output<typeof AttachmentInput>;

/** Keeps the bytes of each attachment and answers what the message records of them. */
export function keepAttachments(state: SandboxState, inputs: readonly AttachmentInput[]): MessageAttachmentRecord[] {
  return inputs.map((input) => {
    const contentType = input.content_type ?? FALLBACK_TYPE;
    const name = input.name ?? defaultName(input.type, contentType);
    const bytes = Buffer.from(input.content_base64, 'base64');
    const id = randomBytes(16).toString('base64url');
    state.files.set(id, { id, name, contentType, bytes, createdAt: state.now() });
    return { type: input.type, fileId: id, name, size: bytes.length };
  });
}

/** The attachments as a message shows them, with URLs absolute on `origin`. */
export function attachmentViews(records: readonly MessageAttachmentRecord[] | undefined, origin: string): MessageAttachment[] {
  return (records ?? []).map((a) => {
    const url = `${origin}${FILES_PATH}/${a.fileId}/${encodeURIComponent(a.name)}`;
    return a.type === 'file' ? { type: 'file', url, name: a.name, size: a.size } : { type: 'image', url };
  });
}

/** The address the request reached the sandbox at, e.g. `http://127.0.0.1:41234`. */
export function originOf(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}

/**
 * `GET /_sandbox/files/<id>/<name>`: the id finds the file; the name is there for whoever saves it.
 * `POST /_sandbox/files` `{type, name?, content_type?, content_base64}`: keeps a file and answers the attachment a
 * message would carry (`threadgate trigger --file` sends it in a webhook of its own making).
 */
export function registerFileRoutes(app: FastifyInstance, state: SandboxState): void {
  app.post(FILES_PATH, { bodyLimit: ATTACHMENT_BODY_LIMIT }, async (request, reply) => {
    const input = parsePayload(AttachmentInput, request.body);
    return reply.status(201).send(attachmentViews(keepAttachments(state, [input]), originOf(request))[0]);
  });
  app.get<{ Params: { file_id: string; name: string } }>(`${FILES_PATH}/:file_id/:name`, async (request, reply) => {
    const file = state.files.get(request.params.file_id);
    if (file === undefined) throw new SandboxNotFoundError('File not found.');
    return reply
      .header('content-type', file.contentType)
      .header('content-length', String(file.bytes.length))
      .header('cache-control', 'no-cache')
      .send(file.bytes);
  });
}

/** `image.png` from image/png; `file` or `image` when the type names no extension. */
function defaultName(type: 'file' | 'image', contentType: string): string {
  const subtype = contentType.split(';')[0]!.split('/')[1] ?? '';
  const ext = subtype.split('+')[0]!.toLowerCase().replace(/^x-/, '').replace(/^jpeg$/, 'jpg').replace(/^plain$/, 'txt');
  return ext !== '' && ext !== 'octet-stream' && /^[a-z0-9]{1,8}$/.test(ext) ? `${type}.${ext}` : type;
}
