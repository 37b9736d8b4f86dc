/**
 * Collections of interactions (spec 02, "Collection" and "Collections"),
 * served under the builder address at /api/v1/collections. The interface was
 * renamed from groups to collections; the older paths are not part of this list.
 *
 * A collection can only be deleted while it holds no interactions and no
 * themes. Fields of themes and templates are not shown in spec 02.
 */
import { z } from 'zod';
import { requiredString } from './request-fields.ts';

export const Collection = z.looseObject({
  id: z.number().int(),
  name: z.string(),
  /** Days submission data is kept before automatic removal; null when disposal is disabled. */
  dataRetentionDays: z.number().int().nullable(),
  /** Automatic disposal on. */
  dataDisposalEnabled: z.boolean(),
  /** Owner organization UUID. */
  organizationUid: z.string(),
  /** Organization shared with; null if not shared. */
  sharedWithPartnerOrganizationUid: z.string().nullable(),
  /** If true the receiver may modify interactions in the collection. */
  sharedWithPartnerReadwrite: z.boolean(),
  /** Internal: true if shared with the support team. */
  sharedWithSupport: z.boolean(),
});
export type Collection = z.infer<typeof Collection>;

/** GET /api/v1/collections: an array of collections. */
export const CollectionList = z.array(Collection);
export type CollectionList = z.infer<typeof CollectionList>;

/**
 * POST /api/v1/collections/ (create) and POST /api/v1/collections/<collection_id>
 * (update): "same body rules (name required)". Spec 02 documents no limits on
 * these values beyond their types.
 */
export const CollectionWrite = z.strictObject({
  name: requiredString,
  /** Null when disposal is disabled. */
  dataRetentionDays: z.number().int({ error: 'A valid integer is required.' }).nullable().optional(),
  dataDisposalEnabled: z.boolean().optional(),
  organizationUid: z.uuid({ error: 'Must be an organization UUID.' }).optional(),
  /** Null: not shared. */
  sharedWithPartnerOrganizationUid: z.uuid({ error: 'Must be an organization UUID.' }).nullable().optional(),
  sharedWithPartnerReadwrite: z.boolean().optional(),
  sharedWithSupport: z.boolean().optional(),
});
export type CollectionWrite = z.input<typeof CollectionWrite>;
