/**
 * The cursor of /events and /message-events: an opaque text carrying the
 * whole query (window, filters, flags), the endpoint, the organization and
 * the position after the last row served (collector_created_at, tie key). That is
 * why, as spec 02 says, every other body field is ignored when a cursor is
 * sent. A cursor of another endpoint or organization is refused (400).
 */
import { SandboxBadRequestError } from '../errors.ts';
import type { RowsQuery } from './request.ts';

export type Listing = 'events' | 'message-events';

export interface CursorState {
  listing: Listing;
  organizationId: string;
  query: RowsQuery;
  /** The last row served: [collector_created_at ms, tie key]. */
  after: [number, string];
}

export function encodeCursor(cursor: CursorState): string {
  return Buffer.from(JSON.stringify(cursor)).toString('base64url');
}

function isQuery(value: unknown): value is RowsQuery {
  const q = value as Partial<RowsQuery> | null;
  return (
    typeof q === 'object' &&
    q !== null &&
    typeof q.start === 'number' &&
    typeof q.end === 'number' &&
    typeof q.filters === 'object' &&
    q.filters !== null &&
    typeof q.includeCase === 'boolean' &&
    typeof q.onlyWithCase === 'boolean'
  );
}

export function decodeCursor(raw: string, listing: Listing, organizationId: string): CursorState {
  let parsed: Partial<CursorState> | undefined;
  try {
    parsed = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as Partial<CursorState>;
  } catch {
    parsed = undefined;
  }
  const after = parsed?.after;
  if (
    parsed?.listing === listing &&
    parsed.organizationId === organizationId &&
    isQuery(parsed.query) &&
    Array.isArray(after) &&
    typeof after[0] === 'number' &&
    typeof after[1] === 'string'
  ) {
    return parsed as CursorState;
  }
  throw new SandboxBadRequestError('Invalid cursor.');
}
