/**
 * The three shapes the platform shows an interaction in (spec 02): the v2
 * list shape, the v2 single shape (list shape plus draft and canvas fields)
 * and the legacy camelCase shape, whose `tag` is its `updatedDate`.
 *
 * `id` is the interaction UUID and `legacy_id`/`uid` the integer ID; both
 * name the interaction in the paths. `draft_data` is the draft's project
 * (its contents are not shown in spec 02). `published_asset_id` and
 * `publishedAssetUid` are deprecated and always null.
 */
import type { Interaction, InteractionListItem, LegacyInteraction } from '../../platform/schemas/builder-interactions.ts';
import { iso, isoOrNull } from '../time.ts';
import type { InteractionRecord } from './model.ts';

/** The `tag` of an interaction: its updatedDate. */
export const tagOf = (i: InteractionRecord) => iso(i.updatedAt);

export function listView(i: InteractionRecord): InteractionListItem {
  return {
    id: i.uuid,
    legacy_id: i.legacyId,
    collection_id: i.collectionId,
    organization_id: i.organizationId,
    created_at: iso(i.createdAt),
    name: i.name,
    notes: i.notes,
    author_company_id: i.createdBy.organizationId,
    author_user_id: i.createdBy.userId,
    published_asset_id: null,
    published_at: isoOrNull(i.publishedAt),
    published_name: i.isPublished && i.published ? i.published.name : null,
    theme_id: i.themeId,
    updated_at: iso(i.updatedAt),
    updated_by_user_company_id: i.updatedBy.organizationId,
    updated_by_user_id: i.updatedBy.userId,
  };
}

export function singleView(i: InteractionRecord): Interaction {
  return {
    ...listView(i),
    draft_data: structuredClone(i.project),
    draft_data_version: i.draftVersion,
    preview_canvas_rotated: i.previewCanvasRotated,
    preview_canvas_size_type: i.previewCanvasSizeType,
    editor_canvas_size_type: i.editorCanvasSizeType,
    preview_url: i.previewUrl,
    published_data_version: i.published?.draftVersion ?? 0,
    flow_mode: i.flowMode === null ? null : structuredClone(i.flowMode),
  };
}

export function legacyView(i: InteractionRecord): LegacyInteraction {
  return {
    uid: i.legacyId,
    name: i.name,
    notes: i.notes,
    organizationUid: i.organizationId,
    workspaceUid: i.collectionId,
    creatorUserId: i.createdBy.userId,
    creatorUserOrganizationUid: i.createdBy.organizationId,
    createdDate: iso(i.createdAt),
    updatedDate: iso(i.updatedAt),
    updatedUserId: i.updatedBy.userId,
    updatedUserOrganizationUid: i.updatedBy.organizationId,
    themeId: i.themeId,
    templateName: i.templateName,
    publishedAssetUid: null,
    publishedDate: isoOrNull(i.publishedAt),
    isPublished: i.isPublished,
    interactionUuid: i.uuid,
    tag: tagOf(i),
    project: structuredClone(i.project),
    jsonVersion: i.jsonVersion,
    editorCanvasSizeType: i.editorCanvasSizeType,
    previewCanvasSizeType: i.previewCanvasSizeType,
    previewUrl: i.previewUrl,
    previewCanvasRotated: i.previewCanvasRotated,
  };
}
