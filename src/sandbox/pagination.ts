/**
 * Cursor pagination in the platform's wrapper `{next, previous, results}`:
 * `next` and `previous` are absolute URLs with an opaque `cursor` query value,
 * null at either end (spec 01, Pagination).
 *
 * A cursor names a position (the sort key of the item it is next to, plus the
 * id that breaks ties) rather than an offset, so pages stay stable when items
 * are added or removed between requests.
 */
import type { FastifyRequest } from 'fastify';
import type { Page } from '../platform/schemas/pagination.ts';
import { SandboxBadRequestError } from './errors.ts';

/**
 * The page size of every paginated listing without its own: spec 01 documents
 * a default of 20 only for decrypted chats and the sandbox uses it everywhere.
 */
export const DEFAULT_PAGE_SIZE = 20;

export type SortKey = readonly [value: string | number, id: string];

export interface Ordering<T> {
  /** The `ordering` query value, kept in the cursor so a cursor only walks the order it came from. */
  name: string;
  keyOf(item: T): SortKey;
  descending: boolean;
}

interface Cursor {
  ordering: string;
  key: SortKey;
  direction: 'next' | 'previous';
}

/** Sort keys in ascending order: by value, then by id. */
export function compareKeys(a: SortKey, b: SortKey): number {
  if (a[0] !== b[0]) return a[0] < b[0] ? -1 : 1;
  return a[1] === b[1] ? 0 : a[1] < b[1] ? -1 : 1;
}

function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify([cursor.ordering, cursor.key[0], cursor.key[1], cursor.direction])).toString(
    'base64url',
  );
}

function decodeCursor(raw: string, ordering: string): Cursor {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  if (
    Array.isArray(parsed) &&
    parsed.length === 4 &&
    parsed[0] === ordering &&
    (typeof parsed[1] === 'string' || typeof parsed[1] === 'number') &&
    typeof parsed[2] === 'string' &&
    (parsed[3] === 'next' || parsed[3] === 'previous')
  ) {
    return { ordering, key: [parsed[1], parsed[2]], direction: parsed[3] };
  }
  throw new SandboxBadRequestError('Invalid cursor.');
}

export interface PageRequest<T> {
  items: Iterable<T>;
  ordering: Ordering<T>;
  cursor: string | undefined;
  pageSize: number;
  /** The absolute URL of the page a cursor points at. */
  linkFor(cursor: string): string;
}

export function paginate<T>(request: PageRequest<T>): Page<T> {
  const { ordering, pageSize } = request;
  const order = (a: SortKey, b: SortKey) => (ordering.descending ? -compareKeys(a, b) : compareKeys(a, b));
  // Each item's key is computed once (decorate, sort, undecorate).
  const keyed = [...request.items].map((item) => ({ item, key: ordering.keyOf(item) }));
  keyed.sort((a, b) => order(a.key, b.key));
  const cursor = request.cursor === undefined ? undefined : decodeCursor(request.cursor, ordering.name);

  let start: number;
  let end: number;
  if (cursor === undefined) {
    start = 0;
    end = Math.min(keyed.length, pageSize);
  } else if (cursor.direction === 'next') {
    start = firstIndex(keyed, ({ key }) => order(key, cursor.key) > 0);
    end = Math.min(keyed.length, start + pageSize);
  } else {
    end = firstIndex(keyed, ({ key }) => order(key, cursor.key) >= 0);
    start = Math.max(0, end - pageSize);
  }
  const page = keyed.slice(start, end);
  const first = page[0];
  const last = page[page.length - 1];
  // An empty page after a cursor (its items were deleted) still links back from the cursor's position.
  const previousAnchor = first !== undefined ? first.key : cursor?.key;
  const link = (direction: Cursor['direction'], key: SortKey) =>
    request.linkFor(encodeCursor({ ordering: ordering.name, key, direction }));

  return {
    next: end < keyed.length && last !== undefined ? link('next', last.key) : null,
    previous: start > 0 && previousAnchor !== undefined ? link('previous', previousAnchor) : null,
    results: page.map(({ item }) => item),
  };
}

function firstIndex<T>(items: readonly T[], predicate: (item: T) => boolean): number {
  const index = items.findIndex(predicate);
  return index < 0 ? items.length : index;
}

/** The request's own absolute URL with `cursor` (and the other given query values) set. */
export function pageUrl(request: FastifyRequest, query: Record<string, string | number | undefined>, cursor: string): string {
  const url = new URL(request.url, `${request.protocol}://${request.host}`);
  url.search = '';
  for (const [key, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(key, String(value));
  url.searchParams.set('cursor', cursor);
  return url.toString();
}
