/**
 * The service desk's requests changed since a cursor, by JQL over Jira's
 * enhanced search (`GET /rest/api/3/search/jql`, paged with `nextPageToken`;
 * the offset-paged `/rest/api/3/search` is being removed, CHANGE-2046):
 *
 *   project = "HELP" AND updated >= "2026/11/29 14:05" ORDER BY updated ASC
 *
 * The bound is a wall-clock minute in the gateway user's time zone
 * (jql-time.ts), so it starts up to a minute (more near a daylight-saving
 * change) before the cursor. Paging is keyset on that minute: after each
 * page whose last request changed in a later minute, the search starts
 * again from that minute; only a page within one minute goes on with its
 * `nextPageToken`. A request changed during the listing moves to the end and
 * shifts no other one past a page. Requests listed twice are kept once, at
 * their later place. Only within one minute (more requests changed in it
 * than a page holds) does the listing rely on the token, whose paging the
 * reference does not describe: when a request was seen to change during
 * such a listing, another may have shifted past a page unseen, so the
 * cursor is held back to that minute and the next round lists it again.
 *
 * Search is eventually consistent ("a few seconds to minutes", Jira's
 * search-and-reconcile page), so the cursor handed back is Jira's clock at
 * the round's start (its `Date` header) less `OVERLAP_MS`: a change indexed
 * late is still listed by the next round. Without a `Date` header, the latest
 * `updated` seen stands in (never the gateway's clock).
 */
import { parseAnswer } from '../ticket/ticket-http.ts';
import type { ChangeList, TicketChange } from '../ticket/ticket-adapter.ts';
import type { JsmHttp } from './jsm-http.ts';
import { jqlBound } from './jql-time.ts';
import { SearchPage } from './jsm-schemas.ts';

/** How far behind Jira's clock the cursor stays: search may show a change this late. */
export const OVERLAP_MS = 10 * 60_000;
/** Requests per search page (the reference caps at 5000 for `id`-like fields; smaller in tests). */
export const SEARCH_PAGE = 200;
const MINUTE = 60_000;

const iso = (ms: number) => new Date(ms).toISOString();

export interface ChangeSource {
  http: JsmHttp;
  projectKey: string;
  /** The gateway user's time zone (`myself.timeZone`); undefined when Jira does not tell it. */
  zone: string | undefined;
  pageSize: number;
  /** How far behind Jira's clock the cursor stays (`OVERLAP_MS`). */
  overlapMs: number;
  /** Jira's clock now, estimated from its latest `Date` header; undefined before one came. */
  jiraNow(): number | undefined;
}

export async function listChanges(source: ChangeSource, since: string | undefined, signal: AbortSignal): Promise<ChangeList> {
  const project = `project = "${source.projectKey}"`;
  const search = (jql: string, maxResults: number, nextPageToken?: string) =>
    source.http.get('/rest/api/3/search/jql', { jql, fields: 'updated', maxResults, nextPageToken }, signal);
  const parse = (json: unknown) => parseAnswer(SearchPage, json, `Jira at ${source.http.host}`, 'search/jql');

  if (since === undefined) {
    // From now on: only Jira's clock is wanted (without one, its latest change).
    const response = await search(`${project} ORDER BY updated DESC`, 1);
    const latest = parse(response.json).issues[0]?.fields.updated;
    const clock = response.date?.getTime() ?? (latest === undefined ? 0 : Date.parse(latest));
    return { changes: [], nextSince: iso(Math.max(0, clock - source.overlapMs)) };
  }

  const start = Date.parse(since);
  const changes = new Map<string, TicketChange & { at: number }>();
  let roundStart: number | undefined;
  let latest = start;
  let from = start;
  let token: string | undefined;
  /** The first minute paged by token, and whether a request changed while it was listed. */
  let tokenMinute: number | undefined;
  let changedWhileListed = false;
  for (;;) {
    const bound = jqlBound(from, source.zone, source.jiraNow() ?? from);
    const response = await search(`${project} AND updated >= ${bound} ORDER BY updated ASC`, source.pageSize, token);
    roundStart ??= response.date?.getTime();
    const page = parse(response.json);
    for (const issue of page.issues) {
      const at = Date.parse(issue.fields.updated);
      const seen = changes.get(issue.id);
      if (seen !== undefined && seen.updatedAt !== issue.fields.updated) changedWhileListed = true;
      changes.delete(issue.id);
      changes.set(issue.id, { id: issue.id, updatedAt: issue.fields.updated, at });
      if (at > latest) latest = at;
    }
    const next = page.isLast === true ? undefined : (page.nextPageToken ?? undefined);
    const last = page.issues.at(-1);
    if (next === undefined || last === undefined) break;
    const lastMinute = Math.floor(Date.parse(last.fields.updated) / MINUTE) * MINUTE;
    if (lastMinute > Math.floor(from / MINUTE) * MINUTE) {
      // Keyset: start again from the minute the page ended in.
      from = lastMinute;
      token = undefined;
    } else {
      token = next;
      tokenMinute ??= Math.floor(from / MINUTE) * MINUTE;
    }
  }
  const ordered = [...changes.values()].sort((a, b) => a.at - b.at).map(({ id, updatedAt }) => ({ id, updatedAt }));
  let next = Math.max(start, (roundStart ?? latest) - source.overlapMs);
  if (changedWhileListed && tokenMinute !== undefined) next = Math.max(start, Math.min(next, tokenMinute));
  return { changes: ordered, nextSince: iso(next) };
}
