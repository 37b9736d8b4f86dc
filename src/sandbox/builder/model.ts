/**
 * The records of the sandbox's builder (spec 02): collections, themes and
 * interactions. Times are epoch milliseconds of the sandbox clock; the views
 * in `interaction-views.ts` and `collections.ts` turn them into ISO 8601.
 */
import type { CanvasSizeType } from '../../platform/schemas/builder-interactions.ts';

export interface CollectionRecord {
  id: number;
  organizationId: string;
  name: string;
  dataRetentionDays: number | null;
  dataDisposalEnabled: boolean;
  sharedWithPartnerOrganizationUid: string | null;
  sharedWithPartnerReadwrite: boolean;
  sharedWithSupport: boolean;
}

/** Fields of themes are not shown in spec 02: a theme only belongs to a collection and has a name. */
export interface ThemeRecord {
  id: number;
  collectionId: number;
  name: string;
}

/** Who made a change: a user and that user's organization. */
export interface Actor {
  userId: string;
  organizationId: string;
}

/** What a publish freezes: the draft as it was, and which draft version it was. */
export interface PublishedVersion {
  name: string;
  project: Record<string, unknown>;
  jsonVersion: number;
  draftVersion: number;
}

export interface InteractionRecord {
  /** The interaction UUID: `id` of the v2 shapes, `interactionUuid` of the legacy shape. */
  uuid: string;
  /** The integer ID: `legacy_id` of the v2 shapes, `uid` of the legacy shape. */
  legacyId: number;
  organizationId: string;
  collectionId: number;
  name: string;
  notes: string;
  themeId: number;
  templateName: string | null;
  project: Record<string, unknown>;
  jsonVersion: number;
  editorCanvasSizeType: CanvasSizeType;
  previewCanvasSizeType: CanvasSizeType;
  previewUrl: string | null;
  previewCanvasRotated: boolean;
  flowMode: Record<string, unknown> | null;
  createdAt: number;
  createdBy: Actor;
  /** The `tag`: strictly increasing with every change of the draft. */
  updatedAt: number;
  updatedBy: Actor;
  /** 1 on create, one more with every saved change of the draft. */
  draftVersion: number;
  isPublished: boolean;
  /** Last publish time; null if never published (kept after an unpublish). */
  publishedAt: number | null;
  /** The latest published version; kept after an unpublish so revert still works. */
  published: PublishedVersion | null;
}
