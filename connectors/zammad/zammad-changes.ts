/**
 * Which tickets of the group changed since the cursor, from Zammad's ticket
 * search (`GET /tickets/search`, its Elasticsearch index):
 *
 *   query=group.name:"Support" AND updated_at:[2026-11-29T10:00:00.000Z TO 2999-12-31T23:59:59.999Z]
 *   sort_by=updated_at  order_by=asc  page=N  per_page=200
 *
 * The bound is a bracketed range, not `>=`: a range's ends may hold the
 * colons of a time, and Zammad deletes every `*` from a query, so the open
 * end is a far date. Each ticket's `updated_at` is read from the answer's
 * `assets` (the database's, newer than the index's when the index lags).
 *
 * The index takes a change a little after it committed, so a search may miss
 * what changed just before it: the cursor (`nextSince`) is Zammad's clock at
 * the round's start minus `search_overlap_seconds`, so a change the index
 * took late is still found by a later search; the poller passes over a
 * ticket listed again with the `updatedAt` it handled. Pages are keyset:
 * after a full page the next search starts from the last `updated_at` seen —
 * but never later than the overlap's start, where the index may still hold
 * an older `updated_at` than the database (those tickets are searched again
 * next round anyway).
 */
import { TicketSystemError, type ChangeList } from '../ticket/ticket-adapter.ts';
import { parseAnswer } from '../ticket/ticket-http.ts';
import type { ZammadHttp } from './zammad-http.ts';
import { SearchAnswer } from './zammad-schemas.ts';

/** Zammad's largest page of a ticket search. */
export const MAX_PAGE = 200;
/** The open end of the range: Zammad removes `*` from queries. */
const FAR_END = '2999-12-31T23:59:59.999Z';

export interface ChangeSearchOptions {
  group: string;
  overlapMs: number;
  pageSize?: number;
}

/** A group name as a quoted query term (`"` and `\` escaped). */
export const quoted = (text: string) => `"${text.replace(/[\\"]/g, (c) => `\\${c}`)}"`;

export const searchQuery = (group: string, fromMs: number) => `group.name:${quoted(group)} AND updated_at:[${new Date(fromMs).toISOString()} TO ${FAR_END}]`;

export class ZammadChanges {
  readonly #http: ZammadHttp;
  readonly #options: ChangeSearchOptions;

  constructor(http: ZammadHttp, options: ChangeSearchOptions) {
    this.#http = http;
    this.#options = options;
  }

  async list(since: string | undefined, signal: AbortSignal): Promise<ChangeList> {
    const roundStart = await this.#clock(signal);
    const overlapStart = roundStart - this.#options.overlapMs;
    if (since === undefined) return { changes: [], nextSince: new Date(overlapStart).toISOString() };
    const start = Date.parse(since);
    const pageSize = Math.min(this.#options.pageSize ?? MAX_PAGE, MAX_PAGE);
    const changes = new Map<string, { id: string; updatedAt: string; at: number }>();
    let from = start;
    for (let page = 1; ; ) {
      const query = { query: searchQuery(this.#options.group, from), sort_by: 'updated_at', order_by: 'asc', page, per_page: pageSize };
      const answer = parseAnswer(SearchAnswer, (await this.#http.get('/tickets/search', query, signal)).json, `Zammad at ${this.#http.host}`, 'tickets/search');
      const records = answer.assets?.Ticket ?? {};
      let last: number | undefined;
      for (const id of answer.tickets) {
        const record = records[String(id)];
        if (record === undefined) throw new TicketSystemError(`Zammad at ${this.#http.host} answered tickets/search without the record of ticket ${id}`, { malformed: true });
        const at = Date.parse(record.updated_at);
        last = at;
        changes.delete(String(id));
        changes.set(String(id), { id: String(id), updatedAt: record.updated_at, at });
      }
      if (answer.tickets.length < pageSize) break;
      const next = Math.min(last ?? from, overlapStart);
      if (next > from) [from, page] = [next, 1];
      else page += 1;
    }
    const ordered = [...changes.values()].sort((a, b) => a.at - b.at).map(({ id, updatedAt }) => ({ id, updatedAt }));
    return { changes: ordered, nextSince: new Date(Math.max(start, overlapStart)).toISOString() };
  }

  /** Zammad's clock now (from its latest Date header; asked for when none came yet). */
  async #clock(signal: AbortSignal): Promise<number> {
    const now = this.#http.clockNow();
    if (now !== undefined) return now;
    await this.#http.get('/users/me', {}, signal);
    const asked = this.#http.clockNow();
    if (asked === undefined) throw new TicketSystemError(`Zammad at ${this.#http.host} answers without a Date header: its clock is unknown (is a proxy removing it?)`);
    return asked;
  }
}
