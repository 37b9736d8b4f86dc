/**
 * The filter options the log commands share: --status, --connector, --since
 * and --until (`2h`, `30m`, `7d` ago, or an ISO time), --limit and --json;
 * --event and --thread for the commands whose records have them (--kind for
 * jobs is the jobs command's own). Every bad value is a usage error naming
 * the option. Each comes with its help line.
 */
import { DELIVERY_STATUSES, INBOUND_STATUSES, JOB_STATUSES } from '../store/statuses.ts';
import { timeFrom } from '../base/time-spans.ts';
import { UsageError } from './errors.ts';
import type { OptionHelp } from './help.ts';

export const filterOptions = {
  status: { type: 'string', multiple: true },
  connector: { type: 'string' },
  since: { type: 'string' },
  until: { type: 'string' },
  limit: { type: 'string' },
  json: { type: 'boolean' },
} as const;

export const eventOption = { event: { type: 'string' } } as const;
export const threadOption = { thread: { type: 'string' } } as const;

/** The help lines of `filterOptions`, `statuses` being those --status takes. */
export function filterHelp(statuses: readonly string[]) {
  return {
    status: { value: 'S', text: `only records of these statuses, comma-separated: ${statuses.join(', ')}` },
    connector: { value: 'NAME', text: 'only records of this connector (one of the settings or the store)' },
    since: { value: '2h|ISO', text: 'only records from this time on: a duration ago (30m, 2h, 7d) or an ISO time' },
    until: { value: '2h|ISO', text: 'only records before this time: a duration ago or an ISO time' },
    limit: { value: 'N', text: 'at most N records, newest first (1 to 1000)', default: '50' },
    json: { text: 'print JSON instead of a table' },
  } satisfies Record<keyof typeof filterOptions, OptionHelp>;
}

export const eventHelp = { event: { value: 'TYPE', text: 'only webhooks of this event type (message_created, …)' } } satisfies Record<string, OptionHelp>;
export const threadHelp = { thread: { value: 'ID', text: "only records of this thread (the platform's thread_id)" } } satisfies Record<string, OptionHelp>;

export interface FilterValues {
  status?: string[] | undefined;
  connector?: string | undefined;
  event?: string | undefined;
  thread?: string | undefined;
  since?: string | undefined;
  until?: string | undefined;
  limit?: string | undefined;
}

/** `2h` → that long ago; an ISO time → that instant. */
export function parseTime(value: string, name: string, now = Date.now()): number {
  const ms = timeFrom(value, now);
  if (ms === undefined) throw new UsageError(`${name} must be a duration ago (2h, 30m, 7d) or an ISO time, got "${value}"`);
  return ms;
}

function statuses<T extends string>(given: string[] | undefined, allowed: readonly T[]): T[] | undefined {
  if (!given) return undefined;
  const list = given.flatMap((s) => s.split(',')).filter((s) => s !== '');
  for (const s of list) if (!allowed.includes(s as T)) throw new UsageError(`--status must be one of ${allowed.join(', ')}, got "${s}"`);
  return list as T[];
}

function limit(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 1_000) throw new UsageError(`--limit must be a whole number from 1 to 1000, got "${value}"`);
  return n;
}

/** The options every log filter reads alike. */
/** `--status skipped`: the messages connectors read and did not post (its own table); only alone, without --thread. */
export function wantsSkipped(v: FilterValues): boolean {
  const list = (v.status ?? []).flatMap((s) => s.split(',')).filter((s) => s !== '');
  if (!list.includes('skipped')) return false;
  if (list.length > 1) throw new UsageError('--status skipped lists what connectors read and did not post; give it alone, not with other statuses');
  if (v.thread) throw new UsageError('--status skipped has no --thread: a skipped message never got a thread');
  return true;
}

/** The filter of the skipped list: connector, code-free, time and limit. */
export function skippedFilter(v: FilterValues) {
  return common(v);
}

function common(v: FilterValues) {
  return {
    ...(v.connector ? { connector: v.connector } : {}),
    ...(v.since ? { since: parseTime(v.since, '--since') } : {}),
    ...(v.until ? { until: parseTime(v.until, '--until') } : {}),
    ...(v.limit ? { limit: limit(v.limit) } : {}),
  };
}

export function deliveryFilter(v: FilterValues) {
  return {
    ...(v.status ? { status: statuses(v.status, DELIVERY_STATUSES) } : {}),
    ...(v.event ? { event: v.event } : {}),
    ...(v.thread ? { thread: v.thread } : {}),
    ...common(v),
  };
}

export function inboundFilter(v: FilterValues) {
  return {
    ...(v.status ? { status: statuses(v.status, INBOUND_STATUSES) } : {}),
    ...(v.thread ? { thread: v.thread } : {}),
    ...common(v),
  };
}

export function jobFilter(v: FilterValues & { kind?: string | undefined }) {
  return {
    ...(v.status ? { status: statuses(v.status, JOB_STATUSES) } : {}),
    ...(v.kind ? { kind: v.kind } : {}),
    ...common(v),
  };
}

/**
 * The filter of a bulk retry: `--status dead` is required (only dead records
 * are retried, and naming it keeps a bare command from acting on everything),
 * and every match is retried, so --limit does not apply.
 */
export function deadOnly<F extends { status?: string[]; limit?: number }>(filter: F, what: string): Omit<F, 'status' | 'limit'> {
  const { status, limit: given, ...rest } = filter;
  if (!status || status.length === 0 || status.some((s) => s !== 'dead')) {
    throw new UsageError(`a bulk retry takes --status dead (only dead ${what} are retried), got ${status?.length ? `"${status.join(',')}"` : 'none'}`);
  }
  if (given !== undefined) throw new UsageError(`--limit does not apply to a retry: every dead match is retried`);
  return rest;
}

export function parseId(value: string | undefined, what: string): number {
  const n = Number(value);
  if (value === undefined || !Number.isInteger(n) || n < 1) throw new UsageError(`${what} must be a positive whole number, got "${value ?? ''}"`);
  return n;
}
