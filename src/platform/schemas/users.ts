/**
 * Users (spec 01, "User", "User client", "User preferences", "Avatar" and the
 * users endpoints).
 *
 * Requests are strict (unknown keys refused with their name) and follow the
 * document's "Editable" column: read-only fields are refused, "required" ones
 * must be present on create and replace (PUT), everything is optional on
 * PATCH. Responses are loose (unknown keys kept); deprecated fields
 * (is_manager, gcm_token, subscribed_channels) may be dropped by the platform
 * and are optional in answers.
 */
import { z } from 'zod';
import { Paginated } from './pagination.ts';
import { OpaqueObject, positiveInt, queryBoolean } from './request-fields.ts';

const dateTime = z.string();
const notBlank = (name: string) => z.string({ error: `${name} must be a string.` }).min(1, { error: `${name} may not be blank.` });

// ─── User ───────────────────────────────────────────────────────────────────

/** Spec 01, "User". */
export const User = z.looseObject({
  id: z.uuid(),
  /** Unique; null for bots. */
  email: z.string().nullable(),
  organization_id: z.uuid(),
  /** The organization resource; its fields: not shown (any object, kept). */
  organization: OpaqueObject,
  first_name: z.string(),
  last_name: z.string(),
  full_name: z.string(),
  /** Deprecated. */
  is_manager: z.boolean().optional(),
  is_staff: z.boolean(),
  alias: z.string().nullable(),
  /** Male, female or null (unknown); the integer codes are not shown. */
  gender: z.number().int().nullable(),
  /** YYYY-MM-DD. */
  birthday: z.string().nullable(),
  phone: z.string().nullable(),
  title: z.string().nullable(),
  created_at: dateTime,
  updated_at: dateTime,
  deleted_at: dateTime.nullable(),
  avatar_id: z.uuid().nullable(),
  avatar: z.looseObject({ id: z.uuid(), url: z.string() }).nullable(),
  is_online_enabled: z.boolean(),
  /** is_online_enabled and is_present. */
  is_online: z.boolean(),
  is_present: z.boolean(),
  current_chat_count: z.number().int(),
  is_deleted: z.boolean(),
  is_bot: z.boolean(),
  is_created_by_sso: z.boolean(),
});
export type User = z.infer<typeof User>;

export const UserPage = Paginated(User);

/**
 * The writable user fields. alias and title "may be null, not blank".
 * birthday and phone are optional with no documented default; null is
 * accepted to clear them. Lengths and the phone format are not documented.
 */
const userFields = {
  /** A valid e-mail; null only for bots. */
  email: z.email({ error: 'Enter a valid email address.' }).nullable(),
  first_name: notBlank('first_name'),
  last_name: notBlank('last_name'),
  /** Deprecated. */
  is_manager: z.boolean(),
  alias: notBlank('alias').nullable(),
  gender: z.number({ error: 'A valid integer is required.' }).int({ error: 'A valid integer is required.' }).nullable(),
  birthday: z.iso.date({ error: 'Enter a date as YYYY-MM-DD.' }).nullable(),
  phone: z.string().nullable(),
  title: notBlank('title').nullable(),
  is_online_enabled: z.boolean(),
  is_bot: z.boolean(),
};

/** email may be null only for a bot (is_bot true in the same body). */
function emailNullOnlyForBots(body: { email?: string | null | undefined; is_bot?: boolean | undefined }, ctx: z.RefinementCtx): void {
  if (body.email === null && body.is_bot !== true) {
    ctx.addIssue({ code: 'custom', path: ['email'], message: 'email may be null only when is_bot is true.' });
  }
}

/**
 * POST /api/v5/orgs/<organization_id>/users: "body requires email, first_name,
 * last_name". The table also marks is_online_enabled required; the endpoint's
 * own list wins for create, and PUT requires it.
 */
export const CreateUserRequest = z
  .strictObject({
    email: userFields.email,
    first_name: userFields.first_name,
    last_name: userFields.last_name,
    is_manager: userFields.is_manager.optional(),
    alias: userFields.alias.optional(),
    gender: userFields.gender.optional(),
    birthday: userFields.birthday.optional(),
    phone: userFields.phone.optional(),
    title: userFields.title.optional(),
    is_online_enabled: userFields.is_online_enabled.optional(),
    is_bot: userFields.is_bot.optional(),
  })
  .superRefine(emailNullOnlyForBots);
export type CreateUserRequest = z.input<typeof CreateUserRequest>;

/** PUT: every "required" field of the table; omitted optional ones are reset to their defaults by the platform. */
export const ReplaceUserRequest = z
  .strictObject({ ...userFields, ...optionalOf(userFields, ['is_manager', 'alias', 'gender', 'birthday', 'phone', 'title', 'is_bot']) })
  .superRefine(emailNullOnlyForBots);
export type ReplaceUserRequest = z.input<typeof ReplaceUserRequest>;

/** PATCH: any subset. email null cannot be checked against is_bot here (the user may already be a bot). */
export const UpdateUserRequest = z.strictObject(userFields).partial();
export type UpdateUserRequest = z.input<typeof UpdateUserRequest>;

function optionalOf<T extends Record<string, z.ZodType>, K extends keyof T & string>(fields: T, keys: readonly K[]) {
  return Object.fromEntries(keys.map((k) => [k, fields[k]!.optional()])) as { [P in K]: z.ZodOptional<T[P]> };
}

/** GET /api/v5/orgs/<organization_id>/users: created_at, updated_at, email, each optionally with `-`; default created_at. */
export const USER_ORDERINGS = ['created_at', '-created_at', 'updated_at', '-updated_at', 'email', '-email'] as const;

export const UserListQuery = z.strictObject({
  ordering: z.enum(USER_ORDERINGS, { error: `ordering must be one of: ${USER_ORDERINGS.join(', ')}.` }).optional(),
  /** Absent: all users; true: only deleted; false: only active. */
  is_deleted: queryBoolean.optional(),
  /** Deprecated. */
  is_manager: queryBoolean.optional(),
  cursor: z.string().min(1, { error: 'cursor may not be blank.' }).optional(),
});
export type UserListQuery = z.input<typeof UserListQuery>;

// ─── User clients ───────────────────────────────────────────────────────────

/** Spec 01, "User client". */
export const UserClient = z.looseObject({
  id: z.uuid(),
  /** Deprecated. */
  gcm_token: z.string().nullable().optional(),
  /** Deprecated. */
  subscribed_channels: z.array(z.string()).optional(),
  /** Seconds the client is kept present; the latest value applies. */
  presence_expires_in: z.number().int(),
  /** A past value means not present. */
  presence_expires_at: dateTime.nullable(),
  is_about_to_expire: z.boolean(),
  created_at: dateTime,
  updated_at: dateTime,
});
export type UserClient = z.infer<typeof UserClient>;

export const UserClientPage = Paginated(UserClient);

/**
 * POST …/clients (register) and PUT or PATCH …/clients/<client_id> (refresh):
 * presence_expires_in is required by all three. The document recommends
 * about 60 s for browsers, longer for mobile apps; no maximum is documented.
 * We refuse more than ten years (PRESENCE_EXPIRES_IN_MAX seconds): far beyond
 * any real client, and an expiry that still is a valid date.
 */
export const PRESENCE_EXPIRES_IN_MAX = 10 * 365 * 24 * 60 * 60;

export const UserClientRequest = z.strictObject({
  presence_expires_in: positiveInt.max(PRESENCE_EXPIRES_IN_MAX, {
    error: `Ensure this value is less than or equal to ${PRESENCE_EXPIRES_IN_MAX} (ten years in seconds).`,
  }),
  /** Deprecated. */
  gcm_token: z.string().nullable().optional(),
  /** Deprecated. */
  subscribed_channels: z.array(z.string()).optional(),
});
export type UserClientRequest = z.input<typeof UserClientRequest>;

// ─── Preferences ────────────────────────────────────────────────────────────

/** Spec 01, "User preferences": the documented defaults (user_id defaults to the owner). */
export const USER_PREFERENCES_DEFAULTS = {
  chat_capacity: 5,
  desktop_message_sound: 'visitor_message',
  is_desktop_message_sound_continuous: true,
  desktop_visitor_added_sound: 'visitor_connect',
  is_desktop_visitor_added_sound_continuous: true,
  ui_language_code: 'en',
  is_muted_offline: false,
  is_statistics_email_enabled: true,
  is_desktop_notification_enabled: false,
  is_spellcheck_enabled: false,
  desktop_volume: 100,
  is_swimlane_visible: true,
  is_call_video_auto_start_enabled: true,
} as const;

/** The writable preference fields and their documented limits (desktop_volume 0 to 100). */
const preferenceFields = {
  /** Maximum simultaneous chats; no maximum documented. */
  chat_capacity: z.number({ error: 'A valid integer is required.' }).int({ error: 'A valid integer is required.' }).min(0, {
    error: 'Ensure this value is greater than or equal to 0.',
  }),
  desktop_message_sound: notBlank('desktop_message_sound'),
  is_desktop_message_sound_continuous: z.boolean(),
  desktop_visitor_added_sound: notBlank('desktop_visitor_added_sound'),
  is_desktop_visitor_added_sound_continuous: z.boolean(),
  /** ISO 639-1: two lower-case letters. */
  ui_language_code: z.string().regex(/^[a-z]{2}$/, { error: 'Enter an ISO 639-1 language code, e.g. en.' }),
  is_muted_offline: z.boolean(),
  is_statistics_email_enabled: z.boolean(),
  is_desktop_notification_enabled: z.boolean(),
  is_spellcheck_enabled: z.boolean(),
  desktop_volume: z
    .number({ error: 'A valid integer is required.' })
    .int({ error: 'A valid integer is required.' })
    .min(0, { error: 'Ensure this value is greater than or equal to 0.' })
    .max(100, { error: 'Ensure this value is less than or equal to 100.' }),
  is_swimlane_visible: z.boolean(),
  /** Derived from organization settings; a personal override needs the settings permission. */
  is_call_video_auto_start_enabled: z.boolean(),
};

/** Spec 01, "User preferences": one per user. */
export const UserPreferences = z.looseObject({
  user_id: z.uuid(),
  chat_capacity: z.number().int(),
  desktop_message_sound: z.string(),
  is_desktop_message_sound_continuous: z.boolean(),
  desktop_visitor_added_sound: z.string(),
  is_desktop_visitor_added_sound_continuous: z.boolean(),
  ui_language_code: z.string(),
  is_muted_offline: z.boolean(),
  is_statistics_email_enabled: z.boolean(),
  is_desktop_notification_enabled: z.boolean(),
  is_spellcheck_enabled: z.boolean(),
  desktop_volume: z.number().int(),
  is_swimlane_visible: z.boolean(),
  is_call_video_auto_start_enabled: z.boolean(),
});
export type UserPreferences = z.infer<typeof UserPreferences>;

/**
 * PUT: "all attributes required, else 400" — the attributes the table marks
 * required; is_swimlane_visible and is_call_video_auto_start_enabled are
 * marked optional and stay so. No default is filled in: sending
 * is_call_video_auto_start_enabled needs a permission the caller may lack.
 */
export const ReplaceUserPreferencesRequest = z.strictObject({
  ...preferenceFields,
  ...optionalOf(preferenceFields, ['is_swimlane_visible', 'is_call_video_auto_start_enabled']),
});
export type ReplaceUserPreferencesRequest = z.input<typeof ReplaceUserPreferencesRequest>;

/** PATCH: any subset; omitted fields keep their values. */
export const UpdateUserPreferencesRequest = z.strictObject(preferenceFields).partial();
export type UpdateUserPreferencesRequest = z.input<typeof UpdateUserPreferencesRequest>;

// ─── Avatar ─────────────────────────────────────────────────────────────────

/**
 * Spec 01, "Avatar". Uploads are multipart (form field names: not shown), so
 * no JSON body schema exists; the upload's 201 answer is read as an avatar.
 */
export const Avatar = z.looseObject({
  id: z.uuid(),
  /** The hosting location. */
  url: z.string(),
  created_at: dateTime,
  updated_at: dateTime,
});
export type Avatar = z.infer<typeof Avatar>;
