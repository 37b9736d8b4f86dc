/**
 * Pages of every channel messaging listing: the spec 01 wrapper
 * `{next, previous, results}` with cursor links, 20 items by default and
 * `page_size` up to 100 (the wrapper is "not shown" in spec 03).
 */
import type { FastifyRequest } from 'fastify';
import type { Page } from '../../platform/schemas/pagination.ts';
import { parsePayload } from '../http-errors.ts';
import { DEFAULT_PAGE_SIZE, pageUrl, paginate, type Ordering } from '../pagination.ts';
import { PageQuery } from './requests.ts';

export function listPage<T, V>(
  request: FastifyRequest,
  items: Iterable<T>,
  ordering: Ordering<T>,
  view: (item: T) => V,
): Page<V> {
  const query = parsePayload(PageQuery, request.query);
  const page = paginate({
    items,
    ordering,
    cursor: query.cursor,
    pageSize: query.page_size ?? DEFAULT_PAGE_SIZE,
    linkFor: (cursor) => pageUrl(request, { page_size: query.page_size }, cursor),
  });
  return { next: page.next, previous: page.previous, results: page.results.map(view) };
}

/** Creation order as a string that sorts like the number. */
const seqKey = (seq: number): string => String(seq).padStart(15, '0');

/** Newest first by a time, ties broken by creation order. */
export function newestFirst<T>(name: string, timeOf: (item: T) => number, seqOf: (item: T) => number): Ordering<T> {
  return { name, descending: true, keyOf: (item) => [timeOf(item), seqKey(seqOf(item))] };
}

/** Oldest first by a time, ties broken by creation order. */
export function oldestFirst<T>(name: string, timeOf: (item: T) => number, seqOf: (item: T) => number): Ordering<T> {
  return { name, descending: false, keyOf: (item) => [timeOf(item), seqKey(seqOf(item))] };
}
