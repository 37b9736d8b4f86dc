/**
 * Publish, unpublish and revert (spec 02, "States and transitions").
 *
 * - publish: the latest draft becomes the published version; from any state
 *   (publishing a published interaction publishes its later changes).
 * - unpublish: only a published interaction (409 otherwise); its latest
 *   published version is kept, so `published_at` stays and revert still works.
 * - A `tag` that does not name the interaction's `updatedDate` changes nothing
 *   and the answer is null (`undefined` here), checked before the state.
 * - revert: the draft becomes the latest published version again; refused
 *   (409) if the interaction was never published.
 *
 * Publishing is not a change of the draft: `updatedDate`, and so the tag,
 * stay as they were.
 */
import type { SandboxState } from '../state.ts';
import { PublishStateError } from './errors.ts';
import { touch } from './interactions.ts';
import type { Actor, InteractionRecord } from './model.ts';
import { tagMatches } from './tags.ts';

export function publish(state: SandboxState, record: InteractionRecord, tag: string | undefined): InteractionRecord | undefined {
  if (!tagMatches(tag, record.updatedAt)) return undefined;
  record.published = {
    name: record.name,
    project: structuredClone(record.project),
    jsonVersion: record.jsonVersion,
    draftVersion: record.draftVersion,
  };
  record.isPublished = true;
  record.publishedAt = state.now();
  return record;
}

export function unpublish(record: InteractionRecord, tag: string | undefined): InteractionRecord | undefined {
  if (!tagMatches(tag, record.updatedAt)) return undefined;
  if (!record.isPublished) throw new PublishStateError('The interaction is not published.');
  record.isPublished = false;
  return record;
}

export function revert(state: SandboxState, record: InteractionRecord, actor: Actor): InteractionRecord {
  const published = record.published;
  if (published === null) throw new PublishStateError('The interaction has never been published; there is nothing to revert to.');
  record.name = published.name;
  record.project = structuredClone(published.project);
  record.jsonVersion = published.jsonVersion;
  record.draftVersion = published.draftVersion;
  return touch(state, record, actor);
}
