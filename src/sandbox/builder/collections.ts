/**
 * Collections (spec 02, "Collection"): create, update, delete, and the view.
 *
 * Only the owner organization changes or deletes a collection; a partner it
 * is shared with can read it. Absent optional fields keep their value on an
 * update (defaults on create: no disposal, not shared). `dataRetentionDays`
 * is null exactly when disposal is disabled, so enabling disposal needs a
 * positive number of days and a number of days needs disposal enabled.
 */
import type { z } from 'zod';
import type { Collection, CollectionWrite } from '../../platform/schemas/builder-collections.ts';
import { SandboxNotFoundError, SandboxValidationError } from '../errors.ts';
import type { SandboxState } from '../state.ts';
import type { BuilderState } from './builder-state.ts';
import { CollectionNotEmptyError } from './errors.ts';
import type { CollectionRecord } from './model.ts';

type CollectionInput = z.output<typeof CollectionWrite>;

export function collectionView(c: CollectionRecord): Collection {
  return {
    id: c.id,
    name: c.name,
    dataRetentionDays: c.dataRetentionDays,
    dataDisposalEnabled: c.dataDisposalEnabled,
    organizationUid: c.organizationId,
    sharedWithPartnerOrganizationUid: c.sharedWithPartnerOrganizationUid,
    sharedWithPartnerReadwrite: c.sharedWithPartnerReadwrite,
    sharedWithSupport: c.sharedWithSupport,
  };
}

export function createCollection(
  state: SandboxState,
  builder: BuilderState,
  organizationId: string,
  input: CollectionInput,
): CollectionRecord {
  const record: CollectionRecord = {
    id: 0,
    organizationId,
    name: input.name,
    dataRetentionDays: null,
    dataDisposalEnabled: false,
    sharedWithPartnerOrganizationUid: null,
    sharedWithPartnerReadwrite: false,
    sharedWithSupport: false,
  };
  const created = { ...applyInput(state, record, input), id: builder.nextCollectionId() };
  builder.collections.set(created.id, created);
  return created;
}

export function updateCollection(state: SandboxState, builder: BuilderState, record: CollectionRecord, input: CollectionInput) {
  const updated = applyInput(state, record, input);
  builder.collections.set(updated.id, updated);
  return updated;
}

/** The owner's collection, or 404 (a partner may read but never change or delete it). */
export function requireOwnCollection(builder: BuilderState, id: number, organizationId: string): CollectionRecord {
  const collection = builder.requireCollection(id, organizationId, 'read');
  if (collection.organizationId !== organizationId) throw new SandboxNotFoundError('Collection not found.');
  return collection;
}

export function deleteCollection(builder: BuilderState, record: CollectionRecord): void {
  const interactions = builder.interactionsOf(record.id).length;
  const themes = builder.themesOf(record.id).length;
  if (interactions > 0 || themes > 0) throw new CollectionNotEmptyError(interactions, themes);
  builder.collections.delete(record.id);
}

function applyInput(state: SandboxState, record: CollectionRecord, input: CollectionInput): CollectionRecord {
  if (input.organizationUid !== undefined && input.organizationUid !== record.organizationId) {
    throw SandboxValidationError.field('organizationUid', 'Must be your own organization.');
  }
  const partner =
    input.sharedWithPartnerOrganizationUid === undefined
      ? record.sharedWithPartnerOrganizationUid
      : input.sharedWithPartnerOrganizationUid;
  if (partner !== null && (partner === record.organizationId || !state.organizations.has(partner))) {
    throw SandboxValidationError.field('sharedWithPartnerOrganizationUid', 'Must be another existing organization.');
  }
  const disposal = input.dataDisposalEnabled ?? record.dataDisposalEnabled;
  let retention = input.dataRetentionDays === undefined ? record.dataRetentionDays : input.dataRetentionDays;
  if (!disposal && input.dataRetentionDays === undefined) retention = null;
  if (disposal && (retention === null || retention < 1)) {
    throw SandboxValidationError.field('dataRetentionDays', 'A positive number of days is required when dataDisposalEnabled is true.');
  }
  if (!disposal && retention !== null) {
    throw SandboxValidationError.field('dataRetentionDays', 'Must be null while dataDisposalEnabled is false.');
  }
  return {
    ...record,
    name: input.name,
    dataRetentionDays: retention,
    dataDisposalEnabled: disposal,
    sharedWithPartnerOrganizationUid: partner,
    sharedWithPartnerReadwrite: partner === null ? false : (input.sharedWithPartnerReadwrite ?? record.sharedWithPartnerReadwrite),
    sharedWithSupport: input.sharedWithSupport ?? record.sharedWithSupport,
  };
}
