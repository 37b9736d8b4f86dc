/**
 * How the log commands print records — deliveries, inbound messages, jobs —
 * as a table and as JSON (times as ISO strings): the same for a list, for
 * what a `--dry-run` would act on and for rows printed as they come (`--follow`). And the rows themselves, fetched through
 * the lists' own newest-first queries: every match of a filter, or the rows
 * of some ids.
 */
import type { DeliverySummary, InboundSummary } from '../store/log-queries.ts';
import type { SkippedRow } from '../store/skipped-repo.ts';
import type { JobSummary } from '../store/job-queries.ts';
import { MAX_PAGE } from '../store/sql-filters.ts';
import { formatTable, isoTime, type Cell } from './table.ts';

/**
 * An error as people scan it: the reason first. A failed platform call reads
 * `TG_PLATFORM_REJECTED: POST /api/v5/orgs/…/messages → 400: sender_id …`, and
 * a table cell cut at 60 characters showed only the path; this puts the code
 * and the answer first and the call last: `TG_PLATFORM_REJECTED: 400: sender_id … (POST /api/v5/…)`.
 */
export function reasonFirst(error: string | null | undefined): string | null {
  if (error === null || error === undefined) return null;
  const call = /^((?:TG_[A-Z0-9_]+: )?)([A-Z]+ \/\S*) → ([\s\S]*)$/.exec(error);
  return call === null ? error : `${call[1]}${call[3]} (${call[2]})`;
}

/** A table's columns and one record's cells: a whole list, or rows one by one (`--follow`). */
export interface TableOf<R> {
  columns: string[];
  cells: (r: R) => Cell[];
}

const table = <R>(of: TableOf<R>, rows: readonly R[]) => formatTable(of.columns, rows.map(of.cells));

export const DELIVERY_TABLE: TableOf<DeliverySummary> = {
  columns: ['id', 'received', 'connector', 'event', 'status', 'tries', 'thread', 'error / external id'],
  cells: (r) => [r.id, isoTime(r.receivedAt), r.connector, r.eventType, r.status, r.attempts, r.threadId, reasonFirst(r.error) ?? r.externalId],
};

export const deliveriesTable = (rows: readonly DeliverySummary[]): string => table(DELIVERY_TABLE, rows);

export const deliveryJson = (r: DeliverySummary) => ({ ...r, receivedAt: isoTime(r.receivedAt), updatedAt: isoTime(r.updatedAt) });

export const INBOUND_TABLE: TableOf<InboundSummary> = {
  columns: ['id', 'received', 'connector', 'kind', 'status', 'tries', 'thread', 'external id', 'error'],
  cells: (r) => [r.id, isoTime(r.receivedAt), r.connector, r.kind, r.status, r.attempts, r.threadId, r.externalId, reasonFirst(r.lastError)],
};

export const inboundTable = (rows: readonly InboundSummary[]): string => table(INBOUND_TABLE, rows);

export const inboundJson = (r: InboundSummary) => ({ ...r, receivedAt: isoTime(r.receivedAt), postedAt: isoTime(r.postedAt) });

/** What connectors read and did not post (`inbound list --status skipped`): why, first. */
export const SKIPPED_TABLE: TableOf<SkippedRow> = {
  columns: ['id', 'received', 'connector', 'code', 'reason', 'summary', 'external id'],
  cells: (r) => [r.id, isoTime(r.receivedAt), r.connector, r.code, r.reason, r.summary, r.externalId],
};

export const skippedTable = (rows: readonly SkippedRow[]): string => table(SKIPPED_TABLE, rows);

export const skippedJson = (r: SkippedRow) => ({ ...r, receivedAt: isoTime(r.receivedAt) });

export function jobsTable(rows: readonly JobSummary[]): string {
  return formatTable(
    ['id', 'kind', 'status', 'tries', 'connector', 'queued', 'gives up', 'last error'],
    rows.map((r) => [r.id, r.kind, r.status, `${r.attempts}/${r.maxAttempts}`, connectorOf(r.payload), isoTime(r.createdAt), isoTime(r.giveUpAt), reasonFirst(r.lastError)]),
  );
}

export const jobJson = (r: JobSummary) => ({
  ...r,
  runAt: isoTime(r.runAt),
  giveUpAt: isoTime(r.giveUpAt),
  createdAt: isoTime(r.createdAt),
  updatedAt: isoTime(r.updatedAt),
  finishedAt: isoTime(r.finishedAt),
});

function connectorOf(payload: unknown): string | null {
  const connector = (payload as { connector?: unknown } | null)?.connector;
  return typeof connector === 'string' ? connector : null;
}

/** A list query (newest first, below `before`, at most `limit`) with its filter applied. */
export type ListPage<R> = (page: { before?: number; limit: number }) => Promise<R[]>;

/** Every row the list's filter matches, oldest first (the order a bulk retry acts in). */
export async function everyRow<R extends { id: number }>(list: ListPage<R>): Promise<R[]> {
  const rows: R[] = [];
  for (let page = await list({ limit: MAX_PAGE }); page.length > 0; page = await list({ before: page.at(-1)!.id, limit: MAX_PAGE })) {
    rows.push(...page);
  }
  return rows.reverse();
}

/** The rows of `ids` (in their order) through an unfiltered list, and the ids that have none. */
export async function rowsOf<R extends { id: number }>(list: ListPage<R>, ids: readonly number[]): Promise<{ rows: R[]; missing: number[] }> {
  const rows: R[] = [];
  const missing: number[] = [];
  for (const id of ids) {
    const [row] = await list({ before: id + 1, limit: 1 });
    if (row?.id === id) rows.push(row);
    else missing.push(id);
  }
  return { rows, missing };
}
