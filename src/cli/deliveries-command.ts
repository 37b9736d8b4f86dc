/**
 * `threadgate deliveries list [filters] [--json] [--follow]`,
 * `threadgate deliveries show <id> [--json]` and
 * `threadgate deliveries export [filters]`: the webhook delivery log, read
 * from the store (also while `serve` runs); never creating one.
 */
import { DELIVERY_STATUSES } from '../store/statuses.ts';
import { listDeliveries, matchingDeliveryIds } from '../store/log-queries.ts';
import { configOption, parse, subcommandError } from './args.ts';
import { exportDeliveries } from './export-command.ts';
import { follow, followHelp, followNotes, followOptions, followRequest, withoutNewOnly, type FollowRequest } from './follow.ts';
import { UsageError } from './errors.ts';
import { commandHelp, configHelp, helpFor, pick, usageLines } from './help.ts';
import { assertKnownConnector } from './known-connectors.ts';
import { deliveryFilter, eventHelp, eventOption, filterHelp, filterOptions, parseId, threadHelp, threadOption } from './log-filters.ts';
import { DELIVERY_TABLE, deliveriesTable, deliveryJson } from './log-tables.ts';
import { openConfiguredStore } from './store-access.ts';
import { formatTable, isoTime, printJson } from './table.ts';

export const OPTIONS = { ...configOption, ...filterOptions, ...eventOption, ...threadOption, ...followOptions } as const;

const DESCRIBE = { ...configHelp, ...filterHelp(DELIVERY_STATUSES), ...eventHelp, ...threadHelp, ...followHelp };
const { limit: _limit, json: _json, follow: _follow, interval: _interval, ...EXPORT_OPTIONS } = OPTIONS;

export const HELP = [
  commandHelp({
    name: 'deliveries list',
    summary: 'the webhook delivery log, newest first',
    usage: [
      'deliveries list [--status S] [--connector NAME] [--event TYPE] [--thread ID] [--since 2h|ISO] [--until 2h|ISO] [--limit N] [--json]',
      'deliveries list --follow [--interval 1s] [--status S] [--connector NAME] [--event TYPE] [--thread ID] [--since 2h|ISO] [--limit N] [--json]',
    ],
    options: OPTIONS,
    describe: DESCRIBE,
    notes: followNotes('deliveries'),
    examples: ['deliveries list --status dead,failed --since 24h', 'deliveries list --connector helpdesk --limit 10 --json', 'deliveries list --follow --connector helpdesk --json'],
  }),
  commandHelp({
    name: 'deliveries show',
    summary: 'one delivery in full: headers, body, every attempt and its receipt',
    usage: ['deliveries show <id> [--json]'],
    options: pick(OPTIONS, 'config', 'json'),
    describe: pick(DESCRIBE, 'config', 'json'),
    examples: ['deliveries show 42'],
  }),
  commandHelp({
    name: 'deliveries export',
    summary: 'every matching delivery as NDJSON, oldest first, with raw body and headers (for replay --from)',
    usage: ['deliveries export [--status S] [--connector NAME] [--event TYPE] [--thread ID] [--since 2h|ISO] [--until 2h|ISO] > file.ndjson'],
    options: EXPORT_OPTIONS,
    describe: DESCRIBE,
    examples: ['deliveries export --connector helpdesk --since 2h > helpdesk.ndjson'],
  }),
];

const USAGE = usageLines(HELP);
/** The forms of one subcommand, for its usage errors. */
const usageOf = (verb: string) => usageLines(helpFor(HELP, [verb]));

export async function deliveriesCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, OPTIONS);
  const [verb, ...rest] = positionals;
  const following = followRequest(values, 'deliveries', verb);
  if (verb === 'list') {
    if (rest.length > 0) throw new UsageError(`deliveries list takes no arguments, got "${rest.join(' ')}" (filters are options: --status, --connector, …)`, { usage: usageOf('list') });
    return list(withoutNewOnly(values, following), following);
  }
  if (verb === 'show') {
    if (rest.length !== 1) throw new UsageError(`deliveries show takes one delivery id, got ${rest.length}`, { usage: usageOf('show') });
    return show(parseId(rest[0], 'the delivery id'), values);
  }
  if (verb === 'export') {
    if (rest.length > 0) throw new UsageError(`deliveries export takes no arguments, got "${rest.join(' ')}"`, { usage: usageOf('export') });
    if (values.limit !== undefined) throw new UsageError('--limit does not apply to export: every match is written');
    const count = await exportDeliveries(values.config, deliveryFilter(values), (line) => process.stdout.write(line));
    process.stderr.write(`${count} deliveries exported\n`);
    return 0;
  }
  throw subcommandError('deliveries', ['list', 'show', 'export'], verb, USAGE);
}

async function list(values: Parameters<typeof deliveryFilter>[0] & { config?: string | undefined; json?: boolean | undefined }, following: FollowRequest | undefined): Promise<number> {
  const filter = deliveryFilter(values);
  const { loaded, store } = await openConfiguredStore(values.config);
  try {
    await assertKnownConnector(store, loaded, filter.connector);
    if (following) {
      const { sql } = store.read;
      const source = {
        rows: (page: { after?: number; before?: number; limit: number }) => listDeliveries(sql, { ...filter, ...page }),
        ids: (after: number) => matchingDeliveryIds(sql, { after }),
        newest: async () => (await listDeliveries(sql, { limit: 1 }))[0]?.id ?? 0,
      };
      return await follow(source, { json: values.json === true, toJson: deliveryJson, table: DELIVERY_TABLE }, { ...following, limit: filter.limit ?? 50 });
    }
    const rows = await listDeliveries(store.read.sql, filter);
    if (values.json) printJson(rows.map(deliveryJson));
    else process.stdout.write(deliveriesTable(rows));
    return 0;
  } finally {
    await store.close();
  }
}

async function show(id: number, values: { config?: string | undefined; json?: boolean | undefined }): Promise<number> {
  const { store } = await openConfiguredStore(values.config);
  try {
    const delivery = await store.read.deliveries.byId(id);
    if (!delivery) {
      process.stderr.write(`threadgate deliveries: no delivery ${id}\n`);
      return 1;
    }
    const attempts = await store.read.attempts.ofDelivery(id);
    // What the other side reported of what was sent (a chat app's delivered and read ticks), by its external id.
    const kept = delivery.externalId === null ? undefined : await store.read.receipts.of(delivery.connector, delivery.externalId);
    const receipt = kept ? { status: kept.status, at: isoTime(kept.at), reason: kept.reason, recordedAt: isoTime(kept.updatedAt) } : null;
    let body: unknown = delivery.body;
    try {
      body = JSON.parse(delivery.body);
    } catch {
      // shown as received
    }
    const record = { ...delivery, body, receivedAt: isoTime(delivery.receivedAt), updatedAt: isoTime(delivery.updatedAt), receipt, attempts: attempts.map((a) => ({ ...a, startedAt: isoTime(a.startedAt), endedAt: isoTime(a.endedAt) })) };
    if (values.json) printJson(record);
    else {
      const { body: _body, headers, attempts: tries, receipt: _receipt, ...fields } = record;
      for (const [k, v] of Object.entries(fields)) process.stdout.write(`${k.padEnd(14)} ${v === null ? '-' : String(v)}\n`);
      process.stdout.write(`${'receipt'.padEnd(14)} ${receipt === null ? '-' : `${receipt.status} at ${receipt.at}${receipt.reason === null ? '' : `: ${receipt.reason}`}`}\n`);
      process.stdout.write(`\nheaders\n${Object.entries(headers).map(([k, v]) => `  ${k}: ${String(v)}`).join('\n')}\n`);
      process.stdout.write(`\nbody${delivery.bodyTruncated ? ` (cut at store.${delivery.status === 'rejected' ? 'refused.keep_body_bytes' : 'max_stored_body_bytes'})` : ''}\n${typeof body === 'string' ? body : JSON.stringify(body, null, 2)}\n`);
      process.stdout.write(`\nattempts\n${formatTable(['#', 'job', 'replay', 'started', 'ended', 'outcome', 'error / external id'], tries.map((a) => [a.attempt, a.jobId, a.replay, a.startedAt, a.endedAt, a.outcome, a.error ?? a.externalId]))}`);
    }
    return 0;
  } finally {
    await store.close();
  }
}
