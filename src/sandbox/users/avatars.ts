/**
 * Avatars (spec 01): uploaded as a multipart request, kept in memory and
 * served back, without credentials, at the URL the answer gives
 * (`/media/avatars/<avatar_id>`, absolute on the address the request used).
 *
 * Form field names are "not shown": the first file part is the avatar,
 * whatever its field name ("file" in our docs). 400 when the request has no
 * file part, the file is not an image or is over 2 MiB (docs/decisions.md;
 * not 413: spec 01 lists 400 only). A new upload
 * replaces the user's previous avatar.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Avatar } from '../../platform/schemas/users.ts';
import { SandboxValidationError } from '../errors.ts';
import type { AvatarRecord, User } from '../model.ts';
import type { SandboxState } from '../state.ts';
import { assertNotDeleted } from './accounts.ts';
import { profileOf, type AvatarUrl } from './user-view.ts';

export const AVATAR_PATH = '/media/avatars';
export const AVATAR_MAX_BYTES = 2 * 1024 * 1024;

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
 * 413; spec 01 lists 400 for a bad upload, so the answer names the file field.
 */
function tooLargeAs400(field: string): (err: unknown) => never {
  return (err) => {
    if ((err as { statusCode?: unknown } | null)?.statusCode === 413) {
      throw SandboxValidationError.field(field, `The file is too large or the form has too many parts; an avatar is at most ${AVATAR_MAX_BYTES / (1024 * 1024)} MiB.`);
    }
    throw err;
  };
}

/** Reads the multipart upload and stores it as the user's avatar. */
export async function uploadAvatar(state: SandboxState, user: User, request: FastifyRequest): Promise<AvatarRecord> {
  assertNotDeleted(user);
  if (!request.isMultipart()) throw SandboxValidationError.field('file', 'Send the avatar as multipart/form-data with a file part.');
  const file = await request.file({ limits: { fileSize: AVATAR_MAX_BYTES, files: 1 } }).catch(tooLargeAs400('file'));
  if (file === undefined) throw SandboxValidationError.field('file', 'No file was submitted.');
  const bytes = await file.toBuffer().catch(tooLargeAs400(file.fieldname));
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
