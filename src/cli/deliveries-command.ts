/**
 * `threadgate deliveries list [filters] [--json]`,
 * `threadgate deliveries show <id> [--json]` and
 * `threadgate deliveries export [filters]`: the webhook delivery log, read
 * from the store (also while `serve` runs).
 */
import { listDeliveries } from '../store/log-queries.ts';
import { configOption, parse } from './args.ts';
import { exportDeliveries } from './export-command.ts';
import { UsageError } from './errors.ts';
import { deliveryFilter, filterOptions, parseId } from './log-filters.ts';
import { openConfiguredStore } from './store-access.ts';
import { formatTable, isoTime, printJson } from './table.ts';

const USAGE = 'usage: threadgate deliveries list [--status S] [--connector N] [--event E] [--thread T] [--since 2h|ISO] [--until …] [--limit N] [--json]\n' +
  '       threadgate deliveries show <id> [--json]\n' +
  '       threadgate deliveries export [filters] > file.ndjson';

export async function deliveriesCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, { ...configOption, ...filterOptions });
  const [verb, ...rest] = positionals;
  if (verb === 'list' && rest.length === 0) return list(values);
  if (verb === 'show' && rest.length === 1) return show(parseId(rest[0], 'the delivery id'), values);
  if (verb === 'export' && rest.length === 0) {
    if (values.limit !== undefined) throw new UsageError('--limit does not apply to export: every match is written');
    const count = await exportDeliveries(values.config, deliveryFilter(values), (line) => process.stdout.write(line));
    process.stderr.write(`${count} deliveries exported\n`);
    return 0;
  }
  throw new UsageError(USAGE);
}

async function list(values: Parameters<typeof deliveryFilter>[0] & { config?: string | undefined; json?: boolean | undefined }): Promise<number> {
  const filter = deliveryFilter(values);
  const { store } = await openConfiguredStore(values.config);
  try {
    const rows = await listDeliveries(store.read.sql, filter);
    if (values.json) printJson(rows.map((r) => ({ ...r, receivedAt: isoTime(r.receivedAt), updatedAt: isoTime(r.updatedAt) })));
    else {
      process.stdout.write(
        formatTable(
          ['id', 'received', 'connector', 'event', 'status', 'tries', 'thread', 'error / external id'],
          rows.map((r) => [r.id, isoTime(r.receivedAt), r.connector, r.eventType, r.status, r.attempts, r.threadId, r.error ?? r.externalId]),
        ),
      );
    }
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
    let body: unknown = delivery.body;
    try {
      body = JSON.parse(delivery.body);
    } catch {
      // shown as received
    }
    const record = { ...delivery, body, receivedAt: isoTime(delivery.receivedAt), updatedAt: isoTime(delivery.updatedAt), attempts: attempts.map((a) => ({ ...a, startedAt: isoTime(a.startedAt), endedAt: isoTime(a.endedAt) })) };
    if (values.json) printJson(record);
    else {
      const { body: _body, headers, attempts: tries, ...fields } = record;
      for (const [k, v] of Object.entries(fields)) process.stdout.write(`${k.padEnd(14)} ${v === null ? '-' : String(v)}\n`);
      process.stdout.write(`\nheaders\n${Object.entries(headers).map(([k, v]) => `  ${k}: ${String(v)}`).join('\n')}\n`);
      process.stdout.write(`\nbody${delivery.bodyTruncated ? ` (cut at store.${delivery.status === 'rejected' ? 'refused.keep_body_bytes' : 'max_stored_body_bytes'})` : ''}\n${typeof body === 'string' ? body : JSON.stringify(body, null, 2)}\n`);
      process.stdout.write(`\nattempts\n${formatTable(['#', 'job', 'replay', 'started', 'ended', 'outcome', 'error / external id'], tries.map((a) => [a.attempt, a.jobId, a.replay, a.startedAt, a.endedAt, a.outcome, a.error ?? a.externalId]))}`);
    }
    return 0;
  } finally {
    await store.close();
  }
}
