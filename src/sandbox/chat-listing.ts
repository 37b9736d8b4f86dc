/**
 * The chat listings of spec 01: which chats a query selects and in what
 * order. Filters: is_waiting, is_ended, has_messages, has_user_messages,
 * has_visitor_messages, created_at_after / created_at_before (both inclusive,
 * docs/decisions/sandbox-chat-listing.md). Ordering: created_at or -created_at; newest first when
 * none is given (the document's "sorted by creation time descending by
 * default").
 */
import type { Chat, ChatListQuery } from '../platform/schemas/chats.ts';
import type { Ordering } from './pagination.ts';

export type ParsedChatListQuery = { [K in keyof ChatListQuery]?: string };

/** Chats by creation time (ties by id). */
export function chatOrdering<T extends { id: string; created_at: string }>(name: string | undefined): Ordering<T> {
  const ordering = name ?? '-created_at';
  return {
    name: ordering,
    descending: ordering.startsWith('-'),
    keyOf: (chat) => [Date.parse(chat.created_at), chat.id],
  };
}

const flag = (value: string | undefined) => (value === undefined ? undefined : value === 'true');

/** A predicate over chat views for the filters of the query; bad dates were refused by the schema. */
export function chatFilter(query: ParsedChatListQuery): (chat: Chat) => boolean {
  const checks: ((chat: Chat) => boolean)[] = [];
  const byFlag = (value: string | undefined, field: keyof Chat) => {
    const wanted = flag(value);
    if (wanted !== undefined) checks.push((chat) => chat[field] === wanted);
  };
  byFlag(query.is_waiting, 'is_waiting');
  byFlag(query.is_ended, 'is_ended');
  byFlag(query.has_messages, 'has_messages');
  byFlag(query.has_user_messages, 'has_user_messages');
  byFlag(query.has_visitor_messages, 'has_visitor_messages');
  checks.push(...createdAtRange(query.created_at_after, query.created_at_before));
  return (chat) => checks.every((check) => check(chat));
}

/** created_at_after / created_at_before, inclusive. */
export function createdAtRange<T extends { created_at: string }>(after?: string, before?: string): ((item: T) => boolean)[] {
  const checks: ((item: T) => boolean)[] = [];
  if (after !== undefined) {
    const from = Date.parse(after);
    checks.push((item) => Date.parse(item.created_at) >= from);
  }
  if (before !== undefined) {
    const to = Date.parse(before);
    checks.push((item) => Date.parse(item.created_at) <= to);
  }
  return checks;
}
