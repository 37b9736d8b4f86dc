/**
 * Interactions (spec 02, "Interaction" and "Interactions"), served under the
 * builder address. The platform shows them in three shapes:
 *
 * - v2 list shape (snake_case): GET /api/v2/orgs/<organization_id>/interactions;
 * - v2 single shape: the list shape plus the draft and canvas fields, returned
 *   by the v2 get and by create, copy, move, publish and unpublish;
 * - legacy camelCase shape: GET and POST /api/interactions/<interaction_id>.
 *   An update sends the complete object as read, with changed values; its
 *   `tag` (the `updatedDate` it was read with) stops concurrent overwrites.
 *
 * The contents of `project`, `draft_data` and `flow_mode` are not shown in
 * spec 02: they are loose objects, every key kept and passed on.
 */
import { z } from 'zod';
import { isoDateTime, OpaqueObject, queryInteger, requiredString } from './request-fields.ts';

export const CANVAS_SIZE_TYPES = ['mobile1', 'mobile2', 'desktop1', 'desktop2'] as const;
export const CanvasSizeType = z.enum(CANVAS_SIZE_TYPES, {
  error: `Must be one of ${CANVAS_SIZE_TYPES.join(', ')}.`,
});
export type CanvasSizeType = z.infer<typeof CanvasSizeType>;

// ─── v2 shapes ──────────────────────────────────────────────────────────────

export const InteractionListItem = z.looseObject({
  id: z.string(),
  /** Deprecated legacy ID, to be removed: may be absent. */
  legacy_id: z.number().int().optional(),
  collection_id: z.number().int(),
  organization_id: z.string(),
  created_at: z.string(),
  name: z.string(),
  notes: z.string(),
  author_company_id: z.string(),
  author_user_id: z.string(),
  /** Deprecated, must not be used. */
  published_asset_id: z.string().nullable().optional(),
  /** Null if never published. */
  published_at: z.string().nullable(),
  /** Null if not published. */
  published_name: z.string().nullable(),
  theme_id: z.number().int(),
  updated_at: z.string(),
  updated_by_user_company_id: z.string(),
  updated_by_user_id: z.string(),
});
export type InteractionListItem = z.infer<typeof InteractionListItem>;

/** GET /api/v2/orgs/<organization_id>/interactions: a list of list-shape interactions. */
export const InteractionList = z.array(InteractionListItem);
export type InteractionList = z.infer<typeof InteractionList>;

export const Interaction = InteractionListItem.extend({
  /** All internal data (not shown). */
  draft_data: OpaqueObject,
  draft_data_version: z.number().int(),
  /** Portrait. */
  preview_canvas_rotated: z.boolean(),
  preview_canvas_size_type: CanvasSizeType,
  editor_canvas_size_type: CanvasSizeType,
  preview_url: z.string().nullable(),
  published_data_version: z.number().int(),
  /** Null when flow mode is not used; contents not shown. */
  flow_mode: OpaqueObject.nullable(),
});
export type Interaction = z.infer<typeof Interaction>;

/** Publish and unpublish answer null instead of an error when `tag` is stale. */
export const InteractionOrStale = Interaction.nullable();
export type InteractionOrStale = z.infer<typeof InteractionOrStale>;

export const INTERACTION_ORDERINGS = [
  'name',
  '-name',
  'created_at',
  '-created_at',
  'updated_at',
  '-updated_at',
] as const;

/** GET /api/v2/orgs/<organization_id>/interactions. `name` sorts alphabetically; `-` reverses. */
export const InteractionListQuery = z.strictObject({
  collection_id: queryInteger.optional(),
  ordering: z
    .enum(INTERACTION_ORDERINGS, { error: `Must be one of ${INTERACTION_ORDERINGS.join(', ')}.` })
    .optional(),
});
export type InteractionListQuery = z.input<typeof InteractionListQuery>;

// ─── Legacy camelCase shape ─────────────────────────────────────────────────

/** GET /api/interactions/<interaction_id> and the answer of its update. */
export const LegacyInteraction = z.looseObject({
  uid: z.number().int(),
  name: z.string(),
  notes: z.string(),
  organizationUid: z.string(),
  /** Collection ID. */
  workspaceUid: z.number().int(),
  creatorUserId: z.string(),
  creatorUserOrganizationUid: z.string(),
  createdDate: z.string(),
  updatedDate: z.string(),
  updatedUserId: z.string(),
  updatedUserOrganizationUid: z.string(),
  themeId: z.number().int(),
  /** Template used, or null. */
  templateName: z.string().nullable(),
  /** Deprecated. */
  publishedAssetUid: z.string().nullable().optional(),
  /** Last publish time, or null. */
  publishedDate: z.string().nullable(),
  isPublished: z.boolean(),
  /** The UUID that identifies the interaction in many interfaces (form data among them). */
  interactionUuid: z.string(),
  /** Version tag stopping concurrent overwrites. */
  tag: z.string(),
  /** Interaction definition (not shown). */
  project: OpaqueObject,
  jsonVersion: z.number().int(),
  editorCanvasSizeType: CanvasSizeType,
  previewCanvasSizeType: CanvasSizeType,
  previewUrl: z.string().nullable(),
  previewCanvasRotated: z.boolean(),
});
export type LegacyInteraction = z.infer<typeof LegacyInteraction>;

/**
 * POST /api/interactions/<interaction_id>: the complete camelCase interaction
 * as read, with changed values. Every documented field is required (only the
 * deprecated `publishedAssetUid` may be left out) and `tag` must be the one
 * the interaction was read with, so a concurrent change is not overwritten.
 * Unknown keys are refused like in every request.
 */
export const LegacyInteractionUpdate = z.strictObject({
  uid: z.number().int(),
  name: requiredString,
  notes: z.string(),
  organizationUid: z.uuid({ error: 'Must be an organization UUID.' }),
  workspaceUid: z.number().int(),
  creatorUserId: z.string(),
  creatorUserOrganizationUid: z.string(),
  createdDate: isoDateTime,
  updatedDate: isoDateTime,
  updatedUserId: z.string(),
  updatedUserOrganizationUid: z.string(),
  themeId: z.number().int(),
  templateName: z.string().nullable(),
  publishedAssetUid: z.string().nullable().optional(),
  publishedDate: isoDateTime.nullable(),
  isPublished: z.boolean(),
  interactionUuid: z.uuid({ error: 'Must be the interaction UUID.' }),
  tag: isoDateTime,
  project: OpaqueObject,
  jsonVersion: z.number().int(),
  editorCanvasSizeType: CanvasSizeType,
  previewCanvasSizeType: CanvasSizeType,
  previewUrl: z.string().nullable(),
  previewCanvasRotated: z.boolean(),
});
export type LegacyInteractionUpdate = z.input<typeof LegacyInteractionUpdate>;

// ─── Create and the other writes ────────────────────────────────────────────

/** POST /api/interactions/. */
export const InteractionCreate = z.strictObject({
  name: requiredString,
  editorCanvasSizeType: CanvasSizeType,
  /** Internal template JSON version. */
  jsonVersion: z.number().int({ error: 'A valid integer is required.' }),
  templateName: z.string(),
  /** Absent: any theme of the collection, or a new default theme if it has none. */
  themeId: z.number().int({ error: 'A valid integer is required.' }).optional(),
  /** Collection ID. */
  workspaceUid: z.number().int({ error: 'A valid integer is required.' }),
  /** Interaction definition (not shown). */
  project: OpaqueObject,
});
export type InteractionCreate = z.input<typeof InteractionCreate>;

/**
 * GET /api/templates/default: the base payload for a create. It "changes over
 * time", so every field is optional and unknown ones are kept.
 */
export const DefaultTemplate = z.looseObject({
  name: z.string().optional(),
  editorCanvasSizeType: z.string().optional(),
  jsonVersion: z.number().int().optional(),
  templateName: z.string().nullable().optional(),
  themeId: z.number().int().nullable().optional(),
  workspaceUid: z.number().int().nullable().optional(),
  project: OpaqueObject.optional(),
});
export type DefaultTemplate = z.infer<typeof DefaultTemplate>;

/**
 * POST …/interactions/<interaction_id>/copy. `forceUniqueName` is documented
 * (without it duplicate names get no numbering); the target collection field
 * is not shown, so other keys are accepted and passed on (loose object).
 */
export const InteractionCopyRequest = z.looseObject({
  forceUniqueName: z.boolean({ error: 'Must be true or false.' }).optional(),
});
export type InteractionCopyRequest = z.input<typeof InteractionCopyRequest>;

/** POST …/interactions/<interaction_id>/move. The payload is not shown: a loose object. */
export const InteractionMoveRequest = OpaqueObject;
export type InteractionMoveRequest = z.input<typeof InteractionMoveRequest>;

/**
 * POST /api/interactions/<interaction_id>/publish and …/unpublish. `tag`
 * equals the interaction's `updatedDate`; when given and the interaction
 * changed meanwhile, nothing changes and the answer is null.
 */
export const PublishQuery = z.strictObject({
  tag: isoDateTime.optional(),
});
export type PublishQuery = z.input<typeof PublishQuery>;

/** POST /api/interactions/<interaction_id>/revert: the body is an empty object. */
export const RevertRequest = z.strictObject({});
export type RevertRequest = z.input<typeof RevertRequest>;

/** The answer of revert is not shown: a loose object. */
export const RevertResponse = OpaqueObject;
export type RevertResponse = z.infer<typeof RevertResponse>;
