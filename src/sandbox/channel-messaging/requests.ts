/**
 * The request payloads the sandbox accepts where spec 03 says "payload: not
 * shown" (docs/decisions/sandbox-channel-messaging.md). Strict like every
 * sandbox request: an unknown field is refused by name.
 */
import { z } from 'zod';
import { MessageBody } from '../../platform/schemas/channel-messaging.ts';

const NAME_MAX = 255;

const name = z
  .string()
  .trim()
  .min(1, { error: 'This field may not be blank.' })
  .max(NAME_MAX, { error: `Ensure this field has no more than ${NAME_MAX} characters.` });
const description = z.string().nullable();
const avatarUrl = z.url({ error: 'Enter a valid URL.' }).nullable();
const userIds = z.array(z.uuid({ error: 'Must be a valid user UUID.' }));

/** An ISO 8601 time with an offset (`Z` or `+02:00`). */
export const dateTime = z.iso.datetime({ offset: true, error: 'Enter a valid ISO 8601 date/time, e.g. 2026-05-01T10:00:00Z.' });

/** POST /channels. The caller becomes the first member and an admin. */
export const CreateChannelBody = z.strictObject({
  name,
  description: description.optional(),
  avatar_url: avatarUrl.optional(),
  /** Default true; members can be added later only to public channels. */
  is_public: z.boolean().optional(),
  /** Further members, added at creation (the only way into a private channel). */
  member_ids: userIds.optional(),
});

/** PUT /channels/<id>: every writable field; omitted optional ones return to their defaults. */
export const ReplaceChannelBody = z.strictObject({
  name,
  description: description.optional(),
  avatar_url: avatarUrl.optional(),
  is_public: z.boolean().optional(),
});

/** PATCH /channels/<id>: the supplied writable fields. */
export const PatchChannelBody = ReplaceChannelBody.partial();

/** POST /users/<user_id>/dm-channels: the other members; the user of the path is always one. */
export const CreateDmChannelBody = z.strictObject({
  member_ids: userIds.min(1, { error: 'Name at least one other member.' }),
});

/** POST /channels/<id>/members. */
export const AddMemberBody = z.strictObject({
  member_id: z.uuid({ error: 'Must be a valid user UUID.' }),
  is_admin: z.boolean().optional(),
});

/** PATCH /channels/<id>/members/<member_id>. */
export const UpdateMemberBody = z.strictObject({
  /** When the member last read the channel; messages after it are unread. */
  last_seen_at: dateTime.optional(),
  is_admin: z.boolean().optional(),
});

/** PATCH /channels/<id>/messages/<message_id>: a new version 3 body. */
export const UpdateMessageBody = z.strictObject({ body: MessageBody });

/** Every channel messaging listing: cursor pages in the spec 01 wrapper. */
export const PageQuery = z.strictObject({
  cursor: z.string().optional(),
  page_size: z.coerce.number().int().min(1).max(100).optional(),
});
export type PageQuery = z.infer<typeof PageQuery>;
