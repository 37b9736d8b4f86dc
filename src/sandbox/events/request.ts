/**
 * The bodies of the event listing endpoints. Spec 02 shows only `cursor`
 * (when sent, every other field is ignored) and the limits: a window of at
 * most 2 days on `collector_created_at`, pages of 250. The sandbox's own
 * fields (docs/decisions/sandbox-event-listing.md):
 *
 *   { "start": ISO 8601, "end": ISO 8601,             window, start ≤ collector_created_at < end
 *     "filters": { "<column>": value | [values] | "$name" },
 *     "include_case": bool, "only_with_case": bool }  message events only, default false
 *
 * A first request needs start and end; a cursor carries the whole query.
 */
import { z } from 'zod';
import { EVENT_LISTING_LIMITS, EventRowsRequest } from '../../platform/schemas/event-listing.ts';
import { isoDateTime } from '../../platform/schemas/request-fields.ts';
import { SandboxValidationError } from '../errors.ts';
import { parsePayload } from '../http-errors.ts';
import { instantOf } from '../time.ts';
import type { Scalar } from './model.ts';

const scalar = z.union([z.string(), z.number(), z.boolean(), z.null()], {
  error: 'Must be a text, number, boolean or null, or a list of them.',
});
const Filters = z.record(z.string(), z.union([scalar, z.array(scalar).min(1, { error: 'Give at least one value.' })]));

const EventsBody = z.strictObject({ start: isoDateTime, end: isoDateTime, filters: Filters.optional() });
const MessageEventsBody = EventsBody.extend({
  include_case: z.boolean({ error: 'Must be true or false.' }).optional(),
  only_with_case: z.boolean({ error: 'Must be true or false.' }).optional(),
});
/** The catalog takes the same filters, or a mask's parts at the top level (`{"vendor": "shop"}`). */
const maskPart = z.string().nullable().optional();
const EventTypesBody = z
  .strictObject({ filters: Filters.optional(), vendor: maskPart, category: maskPart, action: maskPart })
  .optional();

export type FilterInput = Record<string, Scalar | Scalar[]>;

/** A first-page query, everything a cursor must carry. */
export interface RowsQuery {
  start: number;
  end: number;
  filters: FilterInput;
  includeCase: boolean;
  onlyWithCase: boolean;
}

export type RowsRequest = { cursor: string } | { query: RowsQuery };

function windowOf(start: string, end: string): { start: number; end: number } {
  const from = instantOf(start);
  const to = instantOf(end);
  if (!(to > from)) throw SandboxValidationError.field('end', 'Must be later than start.');
  if (to - from > EVENT_LISTING_LIMITS.maxWindowMs) {
    throw SandboxValidationError.field(
      'end',
      `The window on ${EVENT_LISTING_LIMITS.windowField} is at most 2 days; walk adjacent windows for longer ranges.`,
    );
  }
  return { start: from, end: to };
}

/** The request of /events (`messages` false) or /message-events (`messages` true). */
export function parseRowsRequest(body: unknown, messages: boolean): RowsRequest {
  const { cursor } = parsePayload(EventRowsRequest, body ?? {});
  if (cursor !== undefined) return { cursor };
  if (messages) {
    const parsed = parsePayload(MessageEventsBody, body ?? {});
    return {
      query: {
        ...windowOf(parsed.start, parsed.end),
        filters: parsed.filters ?? {},
        includeCase: parsed.include_case ?? false,
        onlyWithCase: parsed.only_with_case ?? false,
      },
    };
  }
  const parsed = parsePayload(EventsBody, body ?? {});
  return { query: { ...windowOf(parsed.start, parsed.end), filters: parsed.filters ?? {}, includeCase: false, onlyWithCase: false } };
}

export function parseEventTypesRequest(body: unknown): FilterInput {
  const { filters = {}, ...mask } = parsePayload(EventTypesBody, body) ?? {};
  const parts = Object.entries(mask).filter(([, value]) => value !== undefined) as [string, Scalar][];
  return { ...filters, ...Object.fromEntries(parts) };
}
