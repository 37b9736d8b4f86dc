/**
 * The incremental ticket export, cursor based, as Zendesk documents it
 * (https://developer.zendesk.com/api-reference/ticketing/ticket-management/incremental_exports/#incremental-ticket-export-cursor-based,
 * https://developer.zendesk.com/documentation/ticketing/managing-tickets/using-the-incremental-export-api/):
 *
 *   GET /api/v2/incremental/tickets/cursor.json?start_time=<unix seconds>[&per_page=N][&exclude_deleted=true]
 *   GET /api/v2/incremental/tickets/cursor.json?cursor=<after_cursor>
 *     → { tickets: [...with generated_timestamp], after_cursor, after_url, before_cursor, before_url, end_of_stream }
 *
 * - admins only (403 for agents); 10 requests a minute (its own limit, zendesk-auth.ts);
 * - the tickets changed at or after `start_time`, ordered by `generated_timestamp`
 *   (then id), each once at its latest change; whatever changed in the last
 *   minute (`exportLagMs`) is left out, so a ticket changed again within it is too;
 * - `start_time` must be at least that minute old ("Too recent start_time", 422);
 * - `per_page` at most 1000 (the default); `end_of_stream` is true when the
 *   page holds everything up to the horizon; `after_cursor` always names where
 *   the stream stands, so asking with it later lists only what changed since.
 *
 * No ticket is ever deleted here, so `exclude_deleted` changes nothing.
 */
import { forbidden, invalidValue, ZdError } from './zendesk-errors.ts';
import type { Route } from './zendesk-routes.ts';

const MAX_PER_PAGE = 1_000;

/** A place in the stream: after the ticket `id` changed at `gt` (Zendesk's cursors look like base64 of "1576613539.0||467|"). */
const encode = (gt: number, id: number) => Buffer.from(`${gt}.0||${id}|`).toString('base64');

function decode(cursor: string): { gt: number; id: number } {
  const match = /^(\d+)\.0\|\|(-?\d+)\|$/.exec(Buffer.from(cursor, 'base64').toString('utf8'));
  if (!match) throw invalidValue('Invalid cursor');
  return { gt: Number(match[1]), id: Number(match[2]) };
}

export const exportRoute: Route = {
  method: 'GET',
  pattern: /^\/api\/v2\/incremental\/tickets\/cursor(?:\.json)?$/,
  exportLimit: true,
  handle(call, desk) {
    if (call.user?.role !== 'admin') throw forbidden();
    const perText = call.query.get('per_page');
    if (perText !== null && (!/^\d+$/.test(perText) || Number(perText) < 1 || Number(perText) > MAX_PER_PAGE)) throw invalidValue(`per_page must be between 1 and ${MAX_PER_PAGE}`);
    const perPage = perText === null ? MAX_PER_PAGE : Number(perText);
    const cursor = call.query.get('cursor');
    const startText = call.query.get('start_time');
    const now = desk.clock.now();
    let from: { gt: number; id: number };
    if (cursor !== null) {
      from = decode(cursor);
    } else {
      if (startText === null) throw invalidValue('start_time or cursor is required');
      if (!/^\d+$/.test(startText)) throw invalidValue('start_time must be a Unix time in seconds');
      const start = Number(startText);
      if (start * 1000 > now - desk.exportLagMs) {
        throw new ZdError(422, { error: 'InvalidValue', description: `Too recent start_time. Use a start_time older than ${Math.round(desk.exportLagMs / 1000)} seconds` });
      }
      from = { gt: start, id: -1 };
    }
    const horizon = Math.floor((now - desk.exportLagMs) / 1000);
    const after = (t: { generated_timestamp: number; id: number }) => t.generated_timestamp > from.gt || (t.generated_timestamp === from.gt && t.id > from.id);
    const waiting = [...desk.store.tickets.values()]
      .filter((t) => after(t) && t.generated_timestamp <= horizon)
      .sort((a, b) => a.generated_timestamp - b.generated_timestamp || a.id - b.id);
    const tickets = waiting.slice(0, perPage);
    const last = tickets.at(-1);
    const afterCursor = last ? encode(last.generated_timestamp, last.id) : encode(from.gt, from.id);
    const beforeCursor = tickets[0] ? encode(tickets[0].generated_timestamp, tickets[0].id) : null;
    const base = `${desk.root}/api/v2/incremental/tickets/cursor.json`;
    return {
      status: 200,
      body: {
        tickets: tickets.map((t) => desk.json.ticket(t, { generated: true })),
        after_url: `${base}?cursor=${encodeURIComponent(afterCursor)}`,
        after_cursor: afterCursor,
        before_url: beforeCursor ? `${base}?cursor=${encodeURIComponent(beforeCursor)}` : null,
        before_cursor: beforeCursor,
        end_of_stream: waiting.length <= perPage,
      },
    };
  },
};
