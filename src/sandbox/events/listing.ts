/**
 * One page of /events or /message-events: the events of the window
 * (start ≤ collector_created_at < end) that pass the filters, in
 * collector_created_at order (ties in the order recorded), 250 at most, and the cursor of the
 * next page (null on the last).
 */
import { EVENT_LISTING_LIMITS } from '../../platform/schemas/event-listing.ts';
import { compareKeys } from '../pagination.ts';
import { encodeCursor, type CursorState, type Listing } from './cursor.ts';
import type { ListedEvent } from './model.ts';
import type { RowsQuery } from './request.ts';

export interface EventPage<E> {
  results: E[];
  next_cursor: string | null;
}

export interface PageInput<E extends ListedEvent<string>> {
  listing: Listing;
  organizationId: string;
  query: RowsQuery;
  /** The position of the previous page's last row, when a cursor was sent. */
  after: [number, string] | undefined;
  events: readonly E[];
  /** Query-specific predicate (filters, case flags). */
  keep(event: E): boolean;
  /** The sandbox's key that signs the next cursor. */
  cursorKey: Buffer;
}

const positionOf = (e: ListedEvent<string>): [number, string] => [e.collectorCreatedAt, e.tieKey];

export function pageOf<E extends ListedEvent<string>>(input: PageInput<E>): EventPage<E> {
  const { query, after } = input;
  const matching = input.events
    .filter((e) => e.collectorCreatedAt >= query.start && e.collectorCreatedAt < query.end)
    .filter((e) => after === undefined || compareKeys(positionOf(e), after) > 0)
    .filter((e) => input.keep(e))
    .sort((a, b) => compareKeys(positionOf(a), positionOf(b)));
  const results = matching.slice(0, EVENT_LISTING_LIMITS.pageSize);
  const last = results[results.length - 1];
  const next: CursorState | undefined =
    matching.length > results.length && last !== undefined
      ? { listing: input.listing, organizationId: input.organizationId, query, after: positionOf(last) }
      : undefined;
  return { results, next_cursor: next === undefined ? null : encodeCursor(next, input.cursorKey) };
}
