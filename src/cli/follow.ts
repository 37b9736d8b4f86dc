/**
 * `--follow` (`-f`) of `deliveries list` and `inbound list`, like `tail -f`:
 * the newest --limit records the filters select, printed oldest first, then
 * every new record as it is stored, read every --interval through the list's
 * own query, until SIGINT or SIGTERM (exit 0, through `untilStopped`; a
 * second signal ends the process at once) or until stdout is closed (`| head`). Reads only: a SQLite reader in WAL
 * mode holds no lock the gateway waits for.
 *
 * New records are those with an id above every id read before, each printed
 * once, as it is when first read: the filters (--status too) are matched then,
 * and a later change of status is not printed. On PostgreSQL ids are taken in
 * one order and committed in another (concurrent writes, replicas), so an id
 * passed over is looked for again for SETTLE_MS and printed if it turns up.
 * A table prints its header once and widens a column for a wider cell; with
 * --json, one object per line (NDJSON), written as it comes.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { parseDuration } from './duration.ts';
import { UsageError } from './errors.ts';
import type { OptionHelp } from './help.ts';
import { everyRow, type TableOf } from './log-tables.ts';
import { untilStopped } from './signals.ts';
import type { Cell } from './table.ts';

export const followOptions = { follow: { type: 'boolean', short: 'f' }, interval: { type: 'string' } } as const;

export const followHelp = {
  follow: { text: 'keep printing new records as they are stored, like tail -f, until Ctrl-C (see above)' },
  interval: { value: '1s', text: 'with --follow: how often the store is read, a duration (500ms, 1s, 1m), at least 100ms', default: '1s' },
} satisfies Record<keyof typeof followOptions, OptionHelp>;

/** The help's notes on --follow, `what` being the records (`deliveries`). */
export const followNotes = (what: string): string[] => [
  `--follow prints the newest --limit ${what} oldest first (--limit 0: none), then each new one as it is stored, until Ctrl-C or SIGTERM (exit 0).`,
  `Each is printed once, as it is when first read (the filters, --status too, are matched then): a later change of status is not printed again.`,
  `With --json, --follow prints one JSON object per line (NDJSON) as each comes, not an array. --until does not go with --follow.`,
];

/** How long an id passed over (taken, not yet committed) is looked for again. */
export const SETTLE_MS = 10_000;
const MIN_INTERVAL_MS = 100;
/** Ids passed over that are looked for again at most (a bigger jump of a sequence is no write in flight). */
const MAX_GAPS = 10_000;

export interface FollowValues {
  follow?: boolean | undefined;
  interval?: string | undefined;
  limit?: string | undefined;
  until?: string | undefined;
}

export interface FollowRequest {
  intervalMs: number;
  /** `--limit 0`: no earlier records, only new ones. */
  newOnly: boolean;
}

/** What `--follow` asks for on `command verb`; undefined without it; a usage error with what it cannot go with. */
export function followRequest(values: FollowValues, command: string, verb: string | undefined): FollowRequest | undefined {
  if (!values.follow) {
    if (values.interval !== undefined) throw new UsageError('--interval goes with --follow: it is how often new records are read');
    return undefined;
  }
  if (verb !== 'list') throw new UsageError(`--follow goes with ${command} list, not ${command} ${verb ?? '(no subcommand)'}`);
  if (values.until !== undefined) throw new UsageError('--until does not go with --follow: records stored from now on are after any --until; give one or the other');
  const intervalMs = values.interval === undefined ? 1_000 : parseDuration(values.interval, '--interval');
  if (intervalMs < MIN_INTERVAL_MS) throw new UsageError(`--interval must be at least ${MIN_INTERVAL_MS}ms, got "${values.interval}"`);
  return { intervalMs, newOnly: values.limit === '0' };
}

/** The filter's values without `--limit 0`, which only --follow takes (the list's own check refuses it). */
export function withoutNewOnly<V extends FollowValues>(values: V, request: FollowRequest | undefined): V {
  return request?.newOnly ? { ...values, limit: undefined } : values;
}

/** The records to follow, through the list's queries. */
export interface FollowSource<R extends { id: number }> {
  /** The filter's records above `after` and below `before`, newest first, at most `limit`. */
  rows(page: { after?: number; before?: number; limit: number }): Promise<R[]>;
  /** The ids of every record (no filter) above `after`, oldest first. */
  ids(after: number): Promise<number[]>;
  /** The highest id of any record (no filter); 0 when there is none. */
  newest(): Promise<number>;
}

export interface FollowOutput<R> {
  json: boolean;
  toJson: (r: R) => unknown;
  table: TableOf<R>;
}

/** Prints the newest `limit` records, then every new one, until a signal (or stdout closes); 0. */
export function follow<R extends { id: number }>(source: FollowSource<R>, out: FollowOutput<R>, request: FollowRequest & { limit: number }): Promise<number> {
  return untilStopped(async (signal) => {
    const closed = new AbortController();
    const onStdoutError = () => closed.abort();
    process.stdout.on('error', onStdoutError);
    try {
      await followUntil(source, out, request, AbortSignal.any([signal, closed.signal]));
      return 0;
    } finally {
      process.stdout.off('error', onStdoutError);
    }
  });
}

async function followUntil<R extends { id: number }>(source: FollowSource<R>, out: FollowOutput<R>, request: FollowRequest & { limit: number }, stop: AbortSignal): Promise<void> {
  const print = printer(out);
  let cursor = await source.newest();
  print(request.newOnly ? [] : (await source.rows({ before: cursor + 1, limit: request.limit })).reverse());
  /** Ids passed over, each with the time it was first missed. */
  const gaps = new Map<number, number>();
  while (await sleep(request.intervalMs, true, { signal: stop }).catch(() => false)) {
    const now = Date.now();
    for (const [id, since] of gaps) if (now - since > SETTLE_MS) gaps.delete(id);
    const present = await source.ids(gaps.size > 0 ? Math.min(...gaps.keys()) - 1 : cursor);
    const fresh = present.filter((id) => id > cursor || gaps.has(id));
    let next = cursor + 1;
    for (const id of fresh) {
      if (id < next) continue;
      for (let gap = next; gap < id && gaps.size < MAX_GAPS; gap += 1) gaps.set(gap, now);
      next = id + 1;
    }
    for (const id of fresh) gaps.delete(id);
    cursor = Math.max(cursor, next - 1);
    if (fresh.length === 0) continue;
    const wanted = new Set(fresh);
    const [low, high] = [fresh[0] as number, fresh.at(-1) as number];
    const rows = await everyRow((page) => source.rows({ after: low - 1, before: Math.min(page.before ?? high + 1, high + 1), limit: page.limit }));
    print(rows.filter((r) => wanted.has(r.id)));
  }
}

/** Writes records as they come: NDJSON, or a table whose header comes first and whose columns widen as needed. */
function printer<R>(out: FollowOutput<R>): (rows: R[]) => void {
  const { columns, cells } = out.table;
  const widths = columns.map((c) => c.length);
  let header = true;
  return (rows) => {
    if (out.json) {
      if (rows.length > 0) process.stdout.write(rows.map((r) => `${JSON.stringify(out.toJson(r))}\n`).join(''));
      return;
    }
    const text = rows.map((r) => cells(r).map(cellText));
    for (const row of text) row.forEach((c, i) => (widths[i] = Math.min(60, Math.max(widths[i] ?? 0, c.length))));
    const line = (cs: string[]) => cs.map((c, i) => (c.length > (widths[i] ?? 0) ? `${c.slice(0, (widths[i] ?? 1) - 1)}…` : c.padEnd(widths[i] ?? 0))).join('  ').trimEnd();
    const lines = [...(header ? [line(columns), line(widths.map((w) => '-'.repeat(w)))] : []), ...text.map(line)];
    header = false;
    if (lines.length > 0) process.stdout.write(`${lines.join('\n')}\n`);
  };
}

const cellText = (c: Cell): string => (c === null || c === undefined ? '-' : String(c)).replace(/\s+/g, ' ');

/** A source's `ids` through its unfiltered list, page by page (for a list without an ids query). */
export async function idsByPages(list: (page: { after: number; before?: number; limit: number }) => Promise<{ id: number }[]>, after: number): Promise<number[]> {
  return (await everyRow((page) => list({ after, ...page }))).map((r) => r.id);
}
