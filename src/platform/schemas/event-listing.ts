/**
 * Event listing (spec 02, "Reporting events" and "Event listing"), under the
 * API address at /api/objectives/v1/orgs/<organization_id>:
 *
 * - POST /event-types: catalog of the generic-event type masks (vendor,
 *   category, action) that have been emitted; no cap;
 * - POST /events: individual generic-event rows (widgets, goals, case
 *   management, shopping cart, custom events);
 * - POST /message-events: individual chat message rows, usually filtered to
 *   message type `msg`; optional case-management flags (off by default).
 *
 * "Request and response fields of the three endpoints: not shown." Every
 * body and answer here is therefore a loose object: unknown keys are accepted
 * and passed on, because refusing them would refuse the real (unshown) fields.
 * Only what spec 02 does name is typed:
 *
 * - `cursor`: when sent, every other body field is ignored by the platform;
 * - the window field is `collector_created_at`, at most 2 days per request,
 *   pages of 250 rows. How the window is written in the body is not shown, so
 *   the 2-day limit is not checked here (EVENT_LISTING_LIMITS documents it for
 *   callers that walk adjacent windows);
 * - generic-event filters may use pipeline value sets written `$name` next to
 *   at least one concrete field (syntax not shown, not checked).
 *
 * The organization_id of the path must equal the authenticated organization.
 */
import { z } from 'zod';
import { OpaqueObject } from './request-fields.ts';

export const EVENT_LISTING_LIMITS = {
  /** Longest time window of one /events or /message-events request. */
  maxWindowMs: 2 * 24 * 60 * 60 * 1000,
  /** Rows per page of /events and /message-events. */
  pageSize: 250,
  /** The field the window applies to. */
  windowField: 'collector_created_at',
} as const;

/** POST /event-types: fields not shown. */
export const EventTypesRequest = OpaqueObject;
export type EventTypesRequest = z.input<typeof EventTypesRequest>;

/**
 * POST /events and /message-events: fields not shown, except `cursor` (an
 * opaque string from a previous page; when sent, all other fields are ignored).
 */
export const EventRowsRequest = z.looseObject({
  cursor: z.string({ error: 'Must be the cursor string of a previous page.' }).min(1).optional(),
});
export type EventRowsRequest = z.input<typeof EventRowsRequest>;

/**
 * One reporting event. `collector_created_at` and `timestamp` are
 * functionally equal (they may differ by milliseconds; a later version will
 * use `timestamp` only). The other columns of generic and message events are
 * not shown.
 */
export const ReportingEvent = z.looseObject({
  collector_created_at: z.string().optional(),
  timestamp: z.string().optional(),
});
export type ReportingEvent = z.infer<typeof ReportingEvent>;

/** A generic-event type mask of the catalog; any of the three may be absent. */
export const EventTypeMask = z.looseObject({
  vendor: z.string().nullable().optional(),
  category: z.string().nullable().optional(),
  action: z.string().nullable().optional(),
});
export type EventTypeMask = z.infer<typeof EventTypeMask>;

/** The answer of /event-types: shape not shown, a loose object. */
export const EventTypesResponse = OpaqueObject;
export type EventTypesResponse = z.infer<typeof EventTypesResponse>;

/** The answer of /events and /message-events: wrapper not shown, a loose object. */
export const EventRowsResponse = OpaqueObject;
export type EventRowsResponse = z.infer<typeof EventRowsResponse>;
