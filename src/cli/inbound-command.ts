/**
 * `threadgate inbound list [filters] [--json] [--follow]`, `inbound show <id>` and
 * `inbound retry <id>… | --status dead [filters] [--dry-run]`: the external →
 * platform direction of the log, with each message's platform POST attempts;
 * retry puts dead messages back (a running `serve` posts them within a
 * second), `--dry-run` lists them instead.
 */
import { NotReplayableError, RecordNotFoundError } from '../bridge/errors.ts';
import { listInbound, matchingInboundIds, type InboundSummary } from '../store/log-queries.ts';
import { INBOUND_STATUSES } from '../store/statuses.ts';
import type { Store } from '../store/store.ts';
import { configOption, parse, subcommandError } from './args.ts';
import { UsageError } from './errors.ts';
import { follow, followHelp, followNotes, followOptions, followRequest, idsByPages, withoutNewOnly } from './follow.ts';
import { commandHelp, configHelp, helpFor, pick, usageLines } from './help.ts';
import { assertKnownConnector } from './known-connectors.ts';
import { deadOnly, filterHelp, filterOptions, inboundFilter, parseId, skippedFilter, threadHelp, threadOption, wantsSkipped } from './log-filters.ts';
import { everyRow, INBOUND_TABLE, inboundJson, inboundTable, reasonFirst, rowsOf, SKIPPED_TABLE, skippedJson, skippedTable } from './log-tables.ts';
import { replayerFor } from './replayer-for.ts';
import { openConfiguredStore } from './store-access.ts';
import { formatTable, isoTime, printJson } from './table.ts';

export const OPTIONS = { ...configOption, ...filterOptions, ...threadOption, 'dry-run': { type: 'boolean' }, ...followOptions } as const;

const DESCRIBE = {
  ...configHelp,
  ...filterHelp(INBOUND_STATUSES),
  ...threadHelp,
  ...followHelp,
  'dry-run': { text: 'list the messages that would be queued again, as a table, and change nothing' },
};

export const HELP = [
  commandHelp({
    name: 'inbound list',
    summary: 'messages on their way to the platform, newest first',
    usage: [
      'inbound list [--status S] [--connector NAME] [--thread ID] [--since 2h|ISO] [--until 2h|ISO] [--limit N] [--json]',
      'inbound list --follow [--interval 1s] [--status S] [--connector NAME] [--thread ID] [--since 2h|ISO] [--limit N] [--json]',
    ],
    options: pick(OPTIONS, 'config', 'status', 'connector', 'thread', 'since', 'until', 'limit', 'json', 'follow', 'interval'),
    describe: { ...DESCRIBE, status: { value: 'S', text: `only messages of these statuses, comma-separated: ${INBOUND_STATUSES.join(', ')}; or skipped alone: what connectors read and did not post (auto-replies, bulk, loops, private notes), with the reason` } },
    notes: followNotes('messages (or skipped ones)'),
    examples: ['inbound list --status dead --since 24h', 'inbound list --connector support-mail --json', 'inbound list --status skipped --since 24h', 'inbound list -f --connector support-mail'],
  }),
  commandHelp({
    name: 'inbound show',
    summary: 'one inbound message in full, with its platform POST attempts',
    usage: ['inbound show <id> [--json]'],
    options: pick(OPTIONS, 'config', 'json'),
    describe: DESCRIBE,
    examples: ['inbound show 7'],
  }),
  commandHelp({
    name: 'inbound retry',
    summary: 'dead messages back to pending, their platform POST queued again (a running serve posts them)',
    usage: ['inbound retry <id>… [--dry-run] [--json]', 'inbound retry --status dead [--connector NAME] [--thread ID] [--since 2h|ISO] [--until 2h|ISO] [--dry-run] [--json]'],
    options: pick(OPTIONS, 'config', 'status', 'connector', 'thread', 'since', 'until', 'dry-run', 'json'),
    describe: { ...DESCRIBE, status: { value: 'dead', text: 'retry every dead message the other filters match; only dead ones are retried' } },
    examples: ['inbound retry 7 8', 'inbound retry --status dead --connector support-mail --since 2h --dry-run'],
  }),
];

const USAGE = usageLines(HELP);
/** The forms of one subcommand, for its usage errors. */
const usageOf = (verb: string) => usageLines(helpFor(HELP, [verb]));

type Values = ReturnType<typeof parse<typeof OPTIONS>>['values'];

export async function inboundCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, OPTIONS);
  const [verb, ...rest] = positionals;
  if (verb !== 'list' && verb !== 'show' && verb !== 'retry') throw subcommandError('inbound', ['list', 'show', 'retry'], verb, USAGE);
  const following = followRequest(values, 'inbound', verb);
  if (verb !== 'retry' && values['dry-run']) throw new UsageError(`--dry-run goes with inbound retry, not inbound ${verb}`, { usage: usageOf('retry') });
  if (verb === 'list' && rest.length > 0) throw new UsageError(`inbound list takes no arguments, got "${rest.join(' ')}" (filters are options: --status, --connector, …)`, { usage: usageOf('list') });
  if (verb === 'show' && rest.length !== 1) throw new UsageError(`inbound show takes one message id, got ${rest.length}`, { usage: usageOf('show') });
  if (verb === 'retry') {
    if (values.status !== undefined && rest.length > 0) throw new UsageError('inbound retry takes message ids or --status dead, not both', { usage: usageOf('retry') });
    if (values.status === undefined && rest.length === 0) throw new UsageError('inbound retry takes message ids, or --status dead to retry every dead message', { usage: usageOf('retry') });
    const stray = (['connector', 'thread', 'since', 'until'] as const).find((k) => values[k] !== undefined);
    if (values.limit !== undefined) throw new UsageError('--limit does not apply to a retry: every match is retried', { usage: usageOf('retry') });
    if (rest.length > 0 && stray) throw new UsageError(`--${stray} filters what --status dead matches; with message ids, give no filter`, { usage: usageOf('retry') });
    if (values.status !== undefined) return retryWhere(values);
  }
  const listed = withoutNewOnly(values, following);
  const skipped = verb === 'list' && wantsSkipped(listed);
  const filter = verb === 'list' ? (skipped ? skippedFilter(listed) : inboundFilter(listed)) : undefined;
  const ids = rest.map((r) => parseId(r, 'an inbound message id'));
  const { loaded, store } = await openConfiguredStore(values.config);
  try {
    if (filter && skipped) {
      await assertKnownConnector(store, loaded, filter.connector);
      const { skipped: repo } = store.read;
      if (following) {
        const source = {
          rows: (page: { after?: number; before?: number; limit: number }) => repo.listWhere({ ...filter, ...page }),
          ids: (after: number) => idsByPages((page) => repo.listWhere(page), after),
          newest: async () => (await repo.listWhere({ limit: 1 }))[0]?.id ?? 0,
        };
        return await follow(source, { json: values.json === true, toJson: skippedJson, table: SKIPPED_TABLE }, { ...following, limit: filter.limit ?? 50 });
      }
      const rows = await repo.listWhere(filter);
      if (values.json) printJson(rows.map(skippedJson));
      else process.stdout.write(skippedTable(rows));
      return 0;
    }
    if (filter) {
      await assertKnownConnector(store, loaded, filter.connector);
      const { sql } = store.read;
      if (following) {
        const source = {
          rows: (page: { after?: number; before?: number; limit: number }) => listInbound(sql, { ...filter, ...page }),
          ids: (after: number) => matchingInboundIds(sql, { after }),
          newest: async () => (await listInbound(sql, { limit: 1 }))[0]?.id ?? 0,
        };
        return await follow(source, { json: values.json === true, toJson: inboundJson, table: INBOUND_TABLE }, { ...following, limit: filter.limit ?? 50 });
      }
      const rows = await listInbound(sql, filter);
      if (values.json) printJson(rows.map(inboundJson));
      else process.stdout.write(inboundTable(rows));
      return 0;
    }
    if (verb === 'show') return await show(store, ids[0] as number, values.json === true);
    if (values['dry-run']) return await dryRunIds(store, ids, values.json === true);
    const replayer = replayerFor(store, loaded);
    let failed = 0;
    for (const id of ids) {
      try {
        process.stdout.write(`${id}: queued again as job ${await replayer.retryInbound(id)}\n`);
      } catch (err) {
        if (!(err instanceof RecordNotFoundError || err instanceof NotReplayableError)) throw err;
        failed += 1;
        process.stdout.write(`${id}: ${err.code}: ${err.message}\n`);
      }
    }
    return failed > 0 ? 1 : 0;
  } finally {
    await store.close();
  }
}

async function show(store: Store, id: number, json: boolean): Promise<number> {
  const message = await store.read.inbound.byId(id);
  if (!message) {
    process.stderr.write(`threadgate inbound: no inbound message ${id}\n`);
    return 1;
  }
  const attempts = (await store.read.attempts.ofInbound(message.id)).map((a) => ({ ...a, startedAt: isoTime(a.startedAt), endedAt: isoTime(a.endedAt) }));
  const record = { ...message, receivedAt: isoTime(message.receivedAt), attempts };
  if (json) printJson(record);
  else {
    const { attempts: tries, body, fullText: _full, ...fields } = record;
    for (const [k, v] of Object.entries(fields)) process.stdout.write(`${k.padEnd(17)} ${v === null ? '-' : typeof v === 'object' ? JSON.stringify(v) : String(v)}\n`);
    process.stdout.write(`\nbody\n${body}\n\nattempts\n${formatTable(['#', 'job', 'started', 'ended', 'outcome', 'status', 'error'], tries.map((a) => [a.attempt, a.jobId, a.startedAt, a.endedAt, a.outcome, a.status, reasonFirst(a.error)]))}`);
  }
  return 0;
}

/** The named messages a retry would queue again (the dead ones); nothing is changed. */
async function dryRunIds(store: Store, ids: number[], json: boolean): Promise<number> {
  const { rows, missing } = await rowsOf((page) => listInbound(store.read.sql, page), ids);
  const notDead = rows.filter((r) => r.status !== 'dead');
  if (json) printJson({ dry_run: true, matched: rows.filter((r) => r.status === 'dead').map((r) => r.id), retried: [], skipped: [], missing, messages: rows.map(inboundJson) });
  else {
    process.stdout.write(inboundTable(rows));
    for (const id of missing) process.stdout.write(`${id}: no inbound message ${id}\n`);
    for (const r of notDead) process.stdout.write(`${r.id}: ${r.status}, not dead: it would not be retried\n`);
    process.stdout.write(`${rows.length - notDead.length} of ${ids.length} named message(s) dead, to be queued again; nothing queued (--dry-run)\n`);
  }
  return missing.length + notDead.length > 0 ? 1 : 0;
}

/** Every dead message the filter matches, back to pending with its thread's flush queued; `--dry-run` lists them instead. */
async function retryWhere(values: Values): Promise<number> {
  const filter = deadOnly(inboundFilter(values), 'messages');
  const dryRun = values['dry-run'] === true;
  const { loaded, store } = await openConfiguredStore(values.config);
  try {
    await assertKnownConnector(store, loaded, filter.connector);
    if (dryRun) {
      const rows: InboundSummary[] = await everyRow((page) => listInbound(store.read.sql, { ...filter, status: ['dead'], ...page }));
      if (values.json) printJson({ dry_run: true, matched: rows.map((r) => r.id), retried: [], skipped: [], messages: rows.map(inboundJson) });
      else process.stdout.write(`${inboundTable(rows)}${rows.length} dead message(s) match; nothing queued (--dry-run)\n`);
      return 0;
    }
    const result = await replayerFor(store, loaded).retryInboundWhere(filter);
    if (values.json) printJson({ dry_run: false, ...result });
    else {
      for (const r of result.retried) process.stdout.write(`${r.id}: queued again as job ${r.job}\n`);
      for (const s of result.skipped) process.stdout.write(`${s.id}: ${s.reason}\n`);
      process.stdout.write(`${result.matched.length} dead message(s) matched, ${result.retried.length} queued again, ${result.skipped.length} skipped\n`);
    }
    return result.skipped.length > 0 ? 1 : 0;
  } finally {
    await store.close();
  }
}
