/**
 * Avatars (spec 01): uploaded as a multipart request, kept in memory and
 * served back, without credentials, at the URL the answer gives
 * (`/media/avatars/<avatar_id>`, absolute on the address the request used).
 *
 * Form field names are "not shown": the first file part is the avatar,
 * whatever its field name ("file" in our docs). 400 when the request has no
 * file part, the file is not an image or is over 2 MiB (docs/decisions/sandbox-avatars.md;
 * not 413: spec 01 lists 400 only). A new upload
 * replaces the user's previous avatar.
 *
 * The upload endpoint lists 201, 400, 401, 403 and 404 only, and the errors
 * section reads 400 as "missing attribute or wrong payload format": a body
 * that is not multipart/form-data (any media type, or none) and a multipart
 * body that cannot be read are 400 with the validation body naming the
 * field, never Fastify's 415 or a 500.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Avatar } from '../../platform/schemas/users.ts';
import { SandboxValidationError } from '../errors.ts';
import type { AvatarRecord, User } from '../model.ts';
import type { SandboxState } from '../state.ts';
import { assertNotDeleted } from './accounts.ts';
import { profileOf, type AvatarUrl } from './user-view.ts';

export const AVATAR_PATH = '/media/avatars';
export const AVATAR_MAX_BYTES = 2 * 1024 * 1024;
/** The field our docs name; any field name is taken. */
const AVATAR_FIELD = 'file';
const NOT_MULTIPART = `Send the avatar as multipart/form-data with the image in the form field "${AVATAR_FIELD}".`;

/**
 * For the scope of the upload routes: a body of any media type without a
 * parser of its own is drained and left unparsed, so the handler checks
 * access first and then answers 400 (`uploadAvatar`) instead of Fastify's 415.
 */
export function acceptAnyMediaType(scope: FastifyInstance): void {
  scope.addContentTypeParser('*', (_request, payload, done) => {
    payload.on('error', (err) => done(err, undefined));
    payload.on('end', () => done(null, undefined));
    payload.resume();
  });
}

export function avatarUrlFor(request: FastifyRequest): AvatarUrl {
  return (avatarId) => `${request.protocol}://${request.host}${AVATAR_PATH}/${avatarId}`;
}

export function avatarView(record: AvatarRecord, avatarUrl: AvatarUrl): Avatar {
  return {
    id: record.id,
    url: avatarUrl(record.id),
    created_at: new Date(record.createdAt).toISOString(),
    updated_at: new Date(record.updatedAt).toISOString(),
  };
}

/** The user's avatar, or undefined. */
export function avatarOf(state: SandboxState, user: User): AvatarRecord | undefined {
  const id = user.profile?.avatarId;
  return id === null || id === undefined ? undefined : state.avatars.get(id);
}

/**
 * @fastify/multipart refuses a file over the limit (or too many parts) with
 * 413, and the multipart parser throws plain errors (no status) for a body
 * it cannot read (no boundary, truncated parts); spec 01 lists 400 for a bad
 * upload, so both answer 400 naming the file field.
 */
function uploadErrorAs400(field: string): (err: unknown) => never {
  return (err) => {
    const status = (err as { statusCode?: unknown } | null)?.statusCode;
    if (status === 413) {
      throw SandboxValidationError.field(field, `The file is too large or the form has too many parts; an avatar is at most ${AVATAR_MAX_BYTES / (1024 * 1024)} MiB.`);
    }
    if (status === undefined && err instanceof Error) {
      throw SandboxValidationError.field(field, `The multipart/form-data body cannot be read (${err.message}). ${NOT_MULTIPART}`);
    }
    throw err;
  };
}

/** Reads the multipart upload and stores it as the user's avatar. */
export async function uploadAvatar(state: SandboxState, user: User, request: FastifyRequest): Promise<AvatarRecord> {
  assertNotDeleted(user);
  if (!request.isMultipart()) throw SandboxValidationError.field(AVATAR_FIELD, NOT_MULTIPART);
  const file = await request.file({ limits: { fileSize: AVATAR_MAX_BYTES, files: 1 } }).catch(uploadErrorAs400(AVATAR_FIELD));
  if (file === undefined) throw SandboxValidationError.field(AVATAR_FIELD, `No file was submitted. ${NOT_MULTIPART}`);
  const bytes = await file.toBuffer().catch(uploadErrorAs400(file.fieldname));
  if (!file.mimetype.startsWith('image/')) {
    throw SandboxValidationError.field(file.fieldname, 'Upload a valid image; the file is not an image.');
  }
  if (bytes.length === 0) throw SandboxValidationError.field(file.fieldname, 'The submitted file is empty.');
  const profile = profileOf(user);
  if (profile.avatarId !== null) state.avatars.delete(profile.avatarId);
  const now = state.now();
  const record: AvatarRecord = {
    id: randomUUID(),
    userId: user.id,
    contentType: file.mimetype,
    filename: file.filename,
    bytes,
    createdAt: now,
    updatedAt: now,
  };
  state.avatars.set(record.id, record);
  profile.avatarId = record.id;
  profile.updatedAt = now;
  return record;
}
