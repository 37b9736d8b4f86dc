/**
 * Creating and changing interactions (spec 02, "Interactions"): create from
 * the default template's payload, the legacy full-object update guarded by
 * `tag`, copy, move within the organization, delete.
 *
 * Every change of the draft moves `updatedAt` strictly forward (so a `tag`
 * read before a change never matches after it) and counts one more draft
 * version; a move changes `updatedAt` but not the draft version.
 */
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { InteractionCreate, LegacyInteractionUpdate } from '../../platform/schemas/builder-interactions.ts';
import { SandboxValidationError, type FieldErrors } from '../errors.ts';
import type { SandboxState } from '../state.ts';
import { instantOf } from '../time.ts';
import { mayAccess, type BuilderState } from './builder-state.ts';
import { StaleTagError } from './errors.ts';
import { legacyView, tagOf } from './interaction-views.ts';
import type { Actor, CollectionRecord, InteractionRecord } from './model.ts';

type CreateInput = z.output<typeof InteractionCreate>;
type UpdateInput = z.output<typeof LegacyInteractionUpdate>;

/** Fields of the legacy shape the server owns; an update must send them as read. */
const READ_ONLY = [
  'uid',
  'interactionUuid',
  'organizationUid',
  'creatorUserId',
  'creatorUserOrganizationUid',
  'createdDate',
  'isPublished',
  'publishedDate',
] as const;

export function createInteraction(state: SandboxState, builder: BuilderState, actor: Actor, input: CreateInput): InteractionRecord {
  const collection = writableCollection(builder, input.workspaceUid, actor, 'workspaceUid');
  const themeId = input.themeId === undefined ? themeFor(builder, collection) : requireTheme(builder, input.themeId, actor);
  const now = state.now();
  const record: InteractionRecord = {
    uuid: randomUUID(),
    legacyId: builder.nextLegacyId(),
    organizationId: collection.organizationId,
    collectionId: collection.id,
    name: input.name,
    notes: '',
    themeId,
    templateName: input.templateName,
    project: structuredClone(input.project),
    jsonVersion: input.jsonVersion,
    editorCanvasSizeType: input.editorCanvasSizeType,
    previewCanvasSizeType: input.editorCanvasSizeType,
    previewUrl: null,
    previewCanvasRotated: false,
    flowMode: null,
    ...freshDraft(now, actor),
  };
  builder.interactions.set(record.uuid, record);
  return record;
}

export function updateInteraction(
  state: SandboxState,
  builder: BuilderState,
  record: InteractionRecord,
  actor: Actor,
  input: UpdateInput,
): InteractionRecord {
  const current = legacyView(record);
  const errors: FieldErrors = {};
  for (const field of READ_ONLY) {
    if (!sameValue(current[field], input[field])) errors[field] = ['Read-only: send the value as read.'];
  }
  if (Object.keys(errors).length > 0) throw new SandboxValidationError(errors);
  if (instantOf(input.tag) !== record.updatedAt) throw new StaleTagError(tagOf(record));

  if (input.workspaceUid !== record.collectionId) moveTarget(builder, record, input.workspaceUid, actor, 'workspaceUid');
  if (input.themeId !== record.themeId) requireTheme(builder, input.themeId, actor);
  Object.assign(record, {
    collectionId: input.workspaceUid,
    name: input.name,
    notes: input.notes,
    themeId: input.themeId,
    templateName: input.templateName,
    project: structuredClone(input.project),
    jsonVersion: input.jsonVersion,
    editorCanvasSizeType: input.editorCanvasSizeType,
    previewCanvasSizeType: input.previewCanvasSizeType,
    previewUrl: input.previewUrl,
    previewCanvasRotated: input.previewCanvasRotated,
    draftVersion: record.draftVersion + 1,
  });
  return touch(state, record, actor);
}

export interface CopyOptions {
  collectionId: number | undefined;
  forceUniqueName: boolean;
}

export function copyInteraction(
  state: SandboxState,
  builder: BuilderState,
  source: InteractionRecord,
  actor: Actor,
  options: CopyOptions,
): InteractionRecord {
  const collection = writableCollection(builder, options.collectionId ?? source.collectionId, actor, 'collection_id');
  const now = state.now();
  const copy: InteractionRecord = {
    ...structuredClone(source),
    uuid: randomUUID(),
    legacyId: builder.nextLegacyId(),
    organizationId: collection.organizationId,
    collectionId: collection.id,
    name: options.forceUniqueName ? uniqueName(builder, collection.id, source.name) : source.name,
    ...freshDraft(now, actor),
  };
  builder.interactions.set(copy.uuid, copy);
  return copy;
}

export function moveInteraction(
  state: SandboxState,
  builder: BuilderState,
  record: InteractionRecord,
  actor: Actor,
  collectionId: number,
): InteractionRecord {
  if (collectionId === record.collectionId) return record;
  record.collectionId = moveTarget(builder, record, collectionId, actor, 'collection_id').id;
  return touch(state, record, actor);
}

/** Marks a change: `updatedAt` strictly later than before, so an old tag never matches again. */
export function touch(state: SandboxState, record: InteractionRecord, actor: Actor): InteractionRecord {
  record.updatedAt = Math.max(state.now(), record.updatedAt + 1);
  record.updatedBy = actor;
  return record;
}

function sameValue(a: unknown, b: unknown): boolean {
  if (typeof a === 'string' && typeof b === 'string' && !Number.isNaN(instantOf(a))) return instantOf(a) === instantOf(b);
  return a === b;
}

function writableCollection(builder: BuilderState, id: number, actor: Actor, field: string): CollectionRecord {
  const collection = builder.collections.get(id);
  if (collection === undefined || !mayAccess(collection, actor.organizationId, 'write')) {
    throw SandboxValidationError.field(field, 'Collection not found.');
  }
  return collection;
}

/** A move stays within the interaction's organization. */
function moveTarget(builder: BuilderState, record: InteractionRecord, id: number, actor: Actor, field: string) {
  const collection = writableCollection(builder, id, actor, field);
  if (collection.organizationId !== record.organizationId) {
    throw SandboxValidationError.field(field, 'Must be a collection of the interaction’s own organization.');
  }
  return collection;
}

function requireTheme(builder: BuilderState, themeId: number, actor: Actor): number {
  const theme = builder.themes.get(themeId);
  const collection = theme && builder.collections.get(theme.collectionId);
  if (collection === undefined || !mayAccess(collection, actor.organizationId, 'read')) {
    throw SandboxValidationError.field('themeId', 'Theme not found.');
  }
  return themeId;
}

/** Any theme of the collection, or a new default theme when it has none. */
function themeFor(builder: BuilderState, collection: CollectionRecord): number {
  return (builder.themesOf(collection.id)[0] ?? builder.addTheme(collection.id, 'Default theme')).id;
}

/** `name`, or `name (n)` with the smallest n not yet used in the collection. */
function uniqueName(builder: BuilderState, collectionId: number, name: string): string {
  const taken = new Set(builder.interactionsOf(collectionId).map((i) => i.name));
  if (!taken.has(name)) return name;
  let n = 1;
  while (taken.has(`${name} (${n})`)) n += 1;
  return `${name} (${n})`;
}

/** The fields of an interaction just made (created or copied): a first draft, never published. */
function freshDraft(now: number, actor: Actor) {
  return {
    createdAt: now,
    createdBy: actor,
    updatedAt: now,
    updatedBy: actor,
    draftVersion: 1,
    isPublished: false as const,
    publishedAt: null,
    published: null,
  };
}
