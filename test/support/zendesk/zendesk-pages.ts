/**
 * Zendesk's two ways of paging a list
 * (https://developer.zendesk.com/api-reference/introduction/pagination/):
 *
 * - cursor pagination, chosen by `page[size]` (at most 100): `page[after]` /
 *   `page[before]` take a cursor from `meta`; the answer carries
 *   `meta: { has_more, after_cursor, before_cursor }` and `links: { next, prev }`;
 * - offset pagination otherwise: `page` and `per_page` (at most 100),
 *   answered with `next_page`, `previous_page` and `count`.
 *
 * The lists paged here only grow at their end, so a cursor is the id of the
 * item it stands after (opaque to clients: base64).
 */
import { invalidPage } from './zendesk-errors.ts';

const MAX = 100;
const encode = (id: number) => Buffer.from(`zd:${id}`).toString('base64url');

function decode(cursor: string): number {
  const match = /^zd:(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) throw invalidPage('page[after] is not a cursor of this list');
  return Number(match[1]);
}

function size(text: string | null, name: string, fallback: number): number {
  if (text === null) return fallback;
  if (!/^\d+$/.test(text) || Number(text) < 1) throw invalidPage(`${name} must be a positive number`);
  return Math.min(Number(text), MAX);
}

/** One page of `items` (each with an `id`) under `key`, as `query` asks; `url` is the list's own address. */
export function page<T extends { id: number }>(key: string, items: readonly T[], query: URLSearchParams, url: string): Record<string, unknown> {
  if (query.has('page[size]') || query.has('page[after]') || query.has('page[before]')) {
    const per = size(query.get('page[size]'), 'page[size]', MAX);
    const after = query.get('page[after]');
    const before = query.get('page[before]');
    if (after !== null && before !== null) throw invalidPage('page[before] and page[after] cannot be used together');
    let from = 0;
    let to = items.length;
    if (after !== null) {
      const id = decode(after);
      from = items.findIndex((i) => i.id === id) + 1;
      if (from === 0) throw invalidPage('page[after] is not a cursor of this list');
    }
    if (before !== null) {
      to = items.findIndex((i) => i.id === decode(before));
      if (to < 0) throw invalidPage('page[before] is not a cursor of this list');
      from = Math.max(0, to - per);
    }
    const slice = items.slice(from, Math.min(to, from + per));
    const hasMore = from + slice.length < to;
    const afterCursor = slice.length > 0 ? encode(slice.at(-1)!.id) : null;
    const beforeCursor = slice.length > 0 ? encode(slice[0]!.id) : null;
    return {
      [key]: slice,
      meta: { has_more: hasMore, after_cursor: afterCursor, before_cursor: beforeCursor },
      links: {
        next: hasMore && afterCursor ? `${url}?page%5Bafter%5D=${afterCursor}&page%5Bsize%5D=${per}` : null,
        prev: from > 0 && beforeCursor ? `${url}?page%5Bbefore%5D=${beforeCursor}&page%5Bsize%5D=${per}` : null,
      },
    };
  }
  const per = size(query.get('per_page'), 'per_page', MAX);
  const number = size(query.get('page'), 'page', 1);
  const slice = items.slice((number - 1) * per, number * per);
  return {
    [key]: slice,
    next_page: number * per < items.length ? `${url}?page=${number + 1}&per_page=${per}` : null,
    previous_page: number > 1 ? `${url}?page=${number - 1}&per_page=${per}` : null,
    count: items.length,
  };
}
