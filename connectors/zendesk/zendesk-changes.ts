/**
 * Which tickets changed: Zendesk's incremental ticket export, cursor based
 * (`GET /api/v2/incremental/tickets/cursor.json`). A round starts it at
 * `start_time` = the poller's `since` (whole seconds) and follows
 * `after_cursor` until `end_of_stream`; the tickets come in the order they
 * last changed (`generated_timestamp`), each once, at its latest change.
 *
 * What the export guarantees shapes `nextSince`:
 *
 * - It leaves out whatever changed in the minute before the request
 *   (`EXPORT_LAG_MS`), and a ticket changed again within that minute is
 *   left out as a whole, its earlier change too. So the next round starts
 *   well before the horizon: Zendesk's clock at the round's first page (its
 *   `Date`), minus that minute, minus `OVERLAP_MS`. A ticket kept out by
 *   changes coming faster than once a minute for longer than that is taken up
 *   as one older than the cursor (docs: "what it cannot do").
 * - `start_time` must be at least a minute old, so it is never asked newer
 *   than Zendesk's clock minus 61 s (tickets listed from before `since` are
 *   dropped here).
 * - It allows 10 requests a minute. A 429 (or 503) on a later page ends the
 *   round with the pages read: `nextSince` then stops at the last change
 *   listed, and the next round carries on from there (its first request, if
 *   refused too, fails the round and the poller waits as `Retry-After` asks).
 *
 * The cursor itself is not kept between rounds: `since` (in the poller's
 * state) is the whole progress, so a restart or another replica resumes the
 * same way. Tickets listed again by the overlap cost nothing: the poller
 * passes over a ticket whose `updated_at` did not move.
 */
import { TicketSystemError, type ChangeList, type TicketChange } from '../ticket/ticket-adapter.ts';
import { parseAnswer, type Query } from '../ticket/ticket-http.ts';
import type { ZendeskHttp } from './zendesk-http.ts';
import { ExportPage } from './zendesk-schemas.ts';

/** The export leaves out what changed in the last minute. */
export const EXPORT_LAG_MS = 60_000;
/** How much further back than the export's horizon the next round starts. */
export const OVERLAP_MS = 240_000;
/** `start_time` must be older than a minute by Zendesk's clock. */
const START_AGE_MS = 61_000;
export const EXPORT_PATH = '/api/v2/incremental/tickets/cursor.json';

export interface ExportOptions {
  /** Only tickets of this brand / group are conversations. */
  brand?: number | undefined;
  group?: number | undefined;
  /** Tickets per page (Zendesk's default and maximum: 1000). */
  perPage: number;
  /** Zendesk's clock now (ms), as its `Date` headers tell it. */
  clock(signal: AbortSignal): Promise<number>;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** "From now on": no changes, and a `since` a minute before Zendesk's clock (what the export cannot list yet). */
export async function startingPoint(options: ExportOptions, signal: AbortSignal): Promise<ChangeList> {
  return { changes: [], nextSince: iso((await options.clock(signal)) - EXPORT_LAG_MS) };
}

export async function exportChanges(http: ZendeskHttp, since: string, options: ExportOptions, signal: AbortSignal): Promise<ChangeList> {
  const start = Math.floor(Date.parse(since) / 1000);
  const now = await options.clock(signal);
  const common = { per_page: options.perPage, exclude_deleted: 'true' };
  let query: Query = { ...common, start_time: Math.min(start, Math.floor((now - START_AGE_MS) / 1000)) };
  const changes = new Map<string, TicketChange>();
  let horizon: number | undefined;
  let latest = start;
  let partial = false;
  for (let page = 0; ; page++) {
    let response;
    try {
      response = await http.get(EXPORT_PATH, query, signal);
    } catch (err) {
      // Rate limited mid-stream: keep what was listed; the next round carries on from its last change.
      if (page > 0 && err instanceof TicketSystemError && (err.status === 429 || err.status === 503)) {
        partial = true;
        break;
      }
      throw err;
    }
    horizon ??= (response.date?.getTime() ?? now) - EXPORT_LAG_MS - OVERLAP_MS;
    const body = parseAnswer(ExportPage, response.json, `Zendesk at ${http.host}`, 'the incremental ticket export');
    for (const ticket of body.tickets) {
      latest = Math.max(latest, ticket.generated_timestamp);
      if (ticket.generated_timestamp < start) continue;
      if (options.brand !== undefined && ticket.brand_id !== options.brand) continue;
      if (options.group !== undefined && ticket.group_id !== options.group) continue;
      const id = String(ticket.id);
      changes.delete(id); // listed again (changed while paging): its later place counts
      changes.set(id, { id, updatedAt: ticket.updated_at });
    }
    const stuck = body.tickets.length === 0 && body.after_cursor === query.cursor;
    if (body.end_of_stream || !body.after_cursor || stuck) break;
    query = { ...common, cursor: body.after_cursor };
  }
  const bound = partial ? Math.min(horizon!, latest * 1000) : horizon!;
  return { changes: [...changes.values()], nextSince: iso(Math.max(start * 1000, bound)) };
}
