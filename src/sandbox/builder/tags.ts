/**
 * Instants of ISO 8601 texts, as the `tag` rule compares them: a tag matches
 * when it names the same instant as the interaction's `updatedDate`, however
 * it is written (`Z` or an offset, any sub-second precision). A time without
 * an offset is read as UTC, like every time the builder shows.
 */
import { instantOf } from '../time.ts';

/** True when no tag was given, or the tag names the instant `updatedAt`. */
export function tagMatches(tag: string | undefined, updatedAt: number): boolean {
  return tag === undefined || instantOf(tag) === updatedAt;
}
