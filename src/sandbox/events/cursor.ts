/**
 * The cursor of /events and /message-events: an opaque text carrying the
 * whole query (window, filters, flags), the endpoint, the organization and
 * the position after the last row served (collector_created_at, tie key). That is
 * why, as spec 02 says, every other body field is ignored when a cursor is
 * sent. A cursor of another endpoint or organization is refused (400).
 *
 * Since the cursor carries the window, it is signed: `<payload>.<mac>`, the
 * payload base64url JSON and the mac its HMAC-SHA256 under a random key of
 * this sandbox (never sent anywhere), so a hand-made or altered cursor cannot
 * widen the window past 2 days. The window is checked again on decoding all
 * the same. Every refusal is a 400 `Invalid cursor.` naming `cursor`.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { EVENT_LISTING_LIMITS } from '../../platform/schemas/event-listing.ts';
import { SandboxBadRequestError, type FieldErrors } from '../errors.ts';
import type { RowsQuery } from './request.ts';

export type Listing = 'events' | 'message-events';

export interface CursorState {
  listing: Listing;
  organizationId: string;
  query: RowsQuery;
  /** The last row served: [collector_created_at ms, tie key]. */
  after: [number, string];
}

/** A new signing key; one per sandbox (EventListingState holds it). */
export const newCursorKey = (): Buffer => randomBytes(32);

/** 400 `{"detail": "Invalid cursor.", "errors": {"cursor": [why]}}`. */
class InvalidCursorError extends SandboxBadRequestError {
  override readonly fieldErrors: FieldErrors;

  constructor(why: string) {
    super('Invalid cursor.');
    this.fieldErrors = { cursor: [why] };
  }
}

const macOf = (key: Buffer, payload: string) => createHmac('sha256', key).update(payload).digest();

export function encodeCursor(cursor: CursorState, key: Buffer): string {
  const payload = Buffer.from(JSON.stringify(cursor)).toString('base64url');
  return `${payload}.${macOf(key, payload).toString('base64url')}`;
}

function isQuery(value: unknown): value is RowsQuery {
  const q = value as Partial<RowsQuery> | null;
  return (
    typeof q === 'object' &&
    q !== null &&
    Number.isFinite(q.start) &&
    Number.isFinite(q.end) &&
    typeof q.filters === 'object' &&
    q.filters !== null &&
    !Array.isArray(q.filters) &&
    typeof q.includeCase === 'boolean' &&
    typeof q.onlyWithCase === 'boolean'
  );
}

/** The payload of a cursor this sandbox signed, or undefined. */
function verified(raw: string, key: Buffer): string | undefined {
  const dot = raw.indexOf('.');
  if (dot < 0 || dot !== raw.lastIndexOf('.')) return undefined;
  const payload = raw.slice(0, dot);
  const mac = Buffer.from(raw.slice(dot + 1), 'base64url');
  const expected = macOf(key, payload);
  return mac.length === expected.length && timingSafeEqual(mac, expected) ? payload : undefined;
}

export function decodeCursor(raw: string, listing: Listing, organizationId: string, key: Buffer): CursorState {
  const payload = verified(raw, key);
  if (payload === undefined) throw new InvalidCursorError('Not a cursor this listing issued (altered or made by hand).');
  let parsed: Partial<CursorState> | undefined;
  try {
    parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Partial<CursorState>;
  } catch {
    parsed = undefined;
  }
  const after = parsed?.after;
  if (
    parsed?.listing !== listing ||
    parsed.organizationId !== organizationId ||
    !isQuery(parsed.query) ||
    !Array.isArray(after) ||
    typeof after[0] !== 'number' ||
    typeof after[1] !== 'string'
  ) {
    throw new InvalidCursorError('Not a cursor of this listing and organization.');
  }
  const { start, end } = parsed.query;
  if (!(end > start) || end - start > EVENT_LISTING_LIMITS.maxWindowMs) {
    throw new InvalidCursorError(`The cursor's window on ${EVENT_LISTING_LIMITS.windowField} is not one of at most 2 days.`);
  }
  return parsed as CursorState;
}
