/**
 * The shapes of Zammad's answers the adapter reads (REST API v1, Zammad 6).
 * Only the fields used are checked; times are UTC ISO 8601 with
 * milliseconds (`2026-11-29T03:01:54.123Z`). A stored file's `size` is a
 * string in Zammad's store, so both a string and a number are taken.
 */
import { z } from 'zod';

const id = z.number().int();
const time = z.string().refine((s) => !Number.isNaN(Date.parse(s)), { error: 'expected an ISO 8601 time' });

/** `GET /users/me?expand=true` and `GET /users/{id}`: `groups` (names → access) comes with `expand=true` only. */
export const User = z.object({
  id,
  login: z.string().nullish(),
  firstname: z.string().nullish(),
  lastname: z.string().nullish(),
  email: z.string().nullish(),
  groups: z.record(z.string(), z.array(z.string())).nullish(),
});
export type ZammadUser = z.output<typeof User>;

/** `GET /ticket_states?expand=true`: each state with its type's name (`closed`, `merged`, `open`, …). */
export const StateList = z.array(z.object({ id, name: z.string(), state_type: z.string().nullish() }));

/** `GET /tickets/search` (without expand): the ids in order, the records under `assets.Ticket`. */
export const SearchAnswer = z.object({
  tickets: z.array(id),
  assets: z.object({ Ticket: z.record(z.string(), z.object({ id, updated_at: time })).optional() }).optional(),
});

/** `GET /tickets/{id}?expand=true`. */
export const Ticket = z.object({
  id,
  number: z.union([z.string(), z.number()]).nullish(),
  title: z.string().nullish(),
  group: z.string().nullish(),
  state_id: id,
  state: z.string().nullish(),
  customer_id: id,
  created_at: time,
  updated_at: time,
});
export type ZammadTicket = z.output<typeof Ticket>;

const Stored = z.object({
  id,
  filename: z.string(),
  size: z.union([z.string(), z.number()]).nullish(),
  preferences: z.record(z.string(), z.unknown()).nullish(),
});

/** `GET /ticket_articles/by_ticket/{id}` (and the answer to `POST /ticket_articles`). */
export const Article = z.object({
  id,
  ticket_id: id,
  type: z.string().nullish(),
  sender: z.string().nullish(),
  internal: z.boolean(),
  body: z.string().nullish(),
  content_type: z.string().nullish(),
  created_by_id: id,
  origin_by_id: id.nullish(),
  created_at: time,
  attachments: z.array(Stored).default([]),
});
export type ZammadArticle = z.output<typeof Article>;
export const ArticleList = z.array(Article);

/** `GET /ticket_history/{id}`: the ticket's history, oldest first; state changes carry the states' names. */
export const History = z.object({
  history: z.array(
    z.object({
      id,
      object: z.string().nullish(),
      type: z.string().nullish(),
      attribute: z.string().nullish(),
      value_from: z.string().nullish(),
      value_to: z.string().nullish(),
      created_by_id: id,
      created_at: time,
    }),
  ),
});
export type ZammadHistoryItem = z.output<typeof History>['history'][number];
