/**
 * The event listing endpoints of spec 02 under
 * /api/objectives/v1/orgs/<organization_id>: the catalog of generic-event
 * type masks, generic-event rows and message-event rows.
 */
import type { FastifyInstance, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import type { EventRowsResponse, EventTypesResponse } from '../../platform/schemas/event-listing.ts';
import { authenticate, organizationIdOf } from '../auth.ts';
import { SandboxForbiddenError, SandboxNotFoundError } from '../errors.ts';
import type { SandboxState } from '../state.ts';
import { iso } from '../time.ts';
import { decodeCursor, type Listing } from './cursor.ts';
import { filterPredicate } from './filters.ts';
import { pageOf } from './listing.ts';
import {
  GENERIC_EVENT_COLUMNS,
  MESSAGE_EVENT_COLUMNS,
  type EventTypeMask,
  type GenericEventRecord,
  type ListedEvent,
  type MessageEventRecord,
} from './model.ts';
import { parseEventTypesRequest, parseRowsRequest, type RowsQuery } from './request.ts';
import type { EventListingState } from './state.ts';

/** Spec 02, Authentication 2: the organization in the path must be the caller's (403 otherwise, even an unknown one). */
export function requireOwnOrganization(state: SandboxState): onRequestAsyncHookHandler {
  return async (request) => {
    try {
      authenticate(state, request);
    } catch (err) {
      if (err instanceof SandboxNotFoundError || err instanceof SandboxForbiddenError) {
        throw new SandboxForbiddenError('The organization_id in the path must be the authenticated organization.');
      }
      throw err;
    }
  };
}

function baseRow(event: ListedEvent<string>) {
  return { id: event.id, collector_created_at: iso(event.collectorCreatedAt), timestamp: iso(event.timestamp), ...event.columns };
}

const genericRow = (event: GenericEventRecord) => ({ ...baseRow(event), properties: event.properties ?? {} });

function messageRow(event: MessageEventRecord, query: RowsQuery) {
  const row = baseRow(event);
  return query.includeCase ? { ...row, case: event.caseId === null ? null : { id: event.caseId } } : row;
}

export function registerEventListingRoutes(app: FastifyInstance, state: SandboxState, events: EventListingState): void {
  /** The query of a first page, or the one a cursor carries. */
  const resolve = (request: FastifyRequest, listing: Listing) => {
    const organizationId = organizationIdOf(request);
    const parsed = parseRowsRequest(request.body, listing === 'message-events');
    if ('query' in parsed) return { organizationId, query: parsed.query, after: undefined };
    const cursor = decodeCursor(parsed.cursor, listing, organizationId, events.cursorKey);
    return { organizationId, query: cursor.query, after: cursor.after };
  };

  app.post('/event-types', async (request): Promise<EventTypesResponse> => {
    const organizationId = organizationIdOf(request);
    const filters = parseEventTypesRequest(request.body);
    const keep = filterPredicate(filters, { columns: GENERIC_EVENT_COLUMNS, organizationId, events, allowValueSets: true });
    const masks = new Map<string, EventTypeMask>();
    for (const e of events.genericOf(organizationId).filter(keep)) {
      const mask = { vendor: text(e.columns.vendor), category: text(e.columns.category), action: text(e.columns.action) };
      masks.set(JSON.stringify(mask), mask);
    }
    return { results: [...masks.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, m]) => m) };
  });

  app.post('/events', async (request): Promise<EventRowsResponse> => {
    const { organizationId, query, after } = resolve(request, 'events');
    const keep = filterPredicate(query.filters, { columns: GENERIC_EVENT_COLUMNS, organizationId, events, allowValueSets: true });
    const page = pageOf({ listing: 'events', organizationId, query, after, events: events.genericOf(organizationId), keep, cursorKey: events.cursorKey });
    return { results: page.results.map(genericRow), next_cursor: page.next_cursor };
  });

  app.post('/message-events', async (request): Promise<EventRowsResponse> => {
    const { organizationId, query, after } = resolve(request, 'message-events');
    const matches = filterPredicate(query.filters, { columns: MESSAGE_EVENT_COLUMNS, organizationId, events, allowValueSets: false });
    const keep = (e: MessageEventRecord) => matches(e) && (!query.onlyWithCase || e.caseId !== null);
    const page = pageOf({ listing: 'message-events', organizationId, query, after, events: events.messagesOf(state, organizationId), keep, cursorKey: events.cursorKey });
    return { results: page.results.map((e) => messageRow(e, query)), next_cursor: page.next_cursor };
  });
}

function text(value: unknown): string | null {
  return value === null || value === undefined ? null : String(value);
}
