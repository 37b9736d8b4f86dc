/**
 * `threadgate replay <id>…` and `threadgate replay --status failed|dead
 * [--connector N] [--since …]`: hand stored deliveries to their connectors
 * again (bypassing dedup; recorded as replay attempts); `--dry-run` lists
 * them instead. Works on the store beside a running `serve`, whose job runner
 * picks the jobs up. `--to URL` sends them elsewhere (forward-command.ts).
 */
import { NotReplayableError, RecordNotFoundError } from '../bridge/errors.ts';
import type { LoadedSettings } from '../config/load.ts';
import { listDeliveries, type DeliveryFilter } from '../store/log-queries.ts';
import { DELIVERY_STATUSES } from '../store/statuses.ts';
import type { Store } from '../store/store.ts';
import { configOption, parse } from './args.ts';
import { UsageError } from './errors.ts';
import { commandHelp, configHelp, usageLines } from './help.ts';
import { assertKnownConnector } from './known-connectors.ts';
import { deliveryFilter, eventHelp, eventOption, filterHelp, filterOptions, parseId, threadHelp, threadOption } from './log-filters.ts';
import { deliveriesTable, deliveryJson, everyRow, rowsOf } from './log-tables.ts';
import { replayerFor } from './replayer-for.ts';
import { openConfiguredStore } from './store-access.ts';
import { forwardCommand } from './forward-command.ts';
import { printJson } from './table.ts';

/** The log filters but --limit: every match is replayed. */
const { limit: _limit, ...filters } = filterOptions;

export const OPTIONS = {
  ...configOption,
  ...filters,
  ...eventOption,
  ...threadOption,
  'dry-run': { type: 'boolean' },
  to: { type: 'string' },
  secret: { type: 'string' },
  'sign-with-live-secret': { type: 'boolean' },
  from: { type: 'string' },
} as const;

export const HELP = [
  commandHelp({
    name: 'replay',
    summary: 'hand stored webhooks to their connectors again, or re-sign and send them to another gateway',
    usage: [
      'replay <id>… [--dry-run] [--json]',
      'replay --status S [--connector NAME] [--event TYPE] [--thread ID] [--since 2h|ISO] [--until 2h|ISO] [--dry-run] [--json]',
      'replay <id>… --to URL (--secret S | --sign-with-live-secret)',
      'replay --from file.ndjson --to URL (--secret S | --sign-with-live-secret)',
    ],
    notes: [
      'Every match is replayed, oldest first; rejected deliveries and those still being delivered are skipped and named.',
      '--to sends to any URL instead, signed with --secret (the receiving gateway\'s) or, deliberately, this gateway\'s live secret.',
    ],
    options: OPTIONS,
    describe: {
      ...configHelp,
      ...filterHelp(DELIVERY_STATUSES),
      ...eventHelp,
      ...threadHelp,
      status: { value: 'S', text: `replay every delivery of these statuses, comma-separated: ${DELIVERY_STATUSES.join(', ')}` },
      'dry-run': { text: 'list the deliveries that would be replayed, as a table, and change nothing' },
      to: { value: 'URL', text: 'POST the deliveries to this URL instead, re-signed with a fresh timestamp, printing each answer' },
      secret: { value: 'S', text: 'with --to: the webhook secret to sign with (the receiving gateway\'s)' },
      'sign-with-live-secret': { text: 'with --to: sign with this gateway\'s live secret of the connector (whoever receives it could send it to production)' },
      from: { value: 'FILE', text: 'with --to: the deliveries of this file of deliveries export instead of ids' },
    },
    examples: [
      'replay 41 42',
      'replay --status dead --connector helpdesk --since 2h --dry-run',
      'replay 41 --to https://staging.example.com/webhooks/helpdesk --secret "$STAGING_SECRET"',
      'replay --from helpdesk.ndjson --to http://127.0.0.1:8080/webhooks/helpdesk --sign-with-live-secret',
    ],
  }),
];

const USAGE = usageLines(HELP);

export async function replayCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, OPTIONS);
  if (values.from !== undefined || values.to !== undefined) return forwardCommand(values, positionals);
  if (values.secret !== undefined || values['sign-with-live-secret']) throw new UsageError('--secret and --sign-with-live-secret go with --to');
  const byFilter = values.status !== undefined;
  if (byFilter && positionals.length > 0) throw new UsageError('replay takes delivery ids or a --status filter, not both', { usage: USAGE });
  if (!byFilter && positionals.length === 0) throw new UsageError('replay takes delivery ids, or --status S to replay every delivery of a status', { usage: USAGE });
  const stray = (['connector', 'event', 'thread', 'since', 'until'] as const).find((k) => values[k] !== undefined);
  if (!byFilter && stray) throw new UsageError(`--${stray} filters what --status matches; with delivery ids, give no filter`, { usage: USAGE });
  const ids = positionals.map((p) => parseId(p, 'a delivery id'));
  const filter = byFilter ? deliveryFilter(values) : undefined;

  const { loaded, store } = await openConfiguredStore(values.config);
  try {
    await assertKnownConnector(store, loaded, filter?.connector);
    if (values['dry-run']) return await dryRun(store, filter ?? ids, values.json === true);
    if (filter) return await replayWhere(store, loaded, filter, values.json === true);
    let failed = 0;
    const replayer = replayerFor(store, loaded);
    const out: { id: number; job?: number; error?: string }[] = [];
    for (const id of ids) {
      try {
        out.push({ id, job: await replayer.replayDelivery(id) });
      } catch (err) {
        if (!(err instanceof RecordNotFoundError || err instanceof NotReplayableError)) throw err;
        failed += 1;
        out.push({ id, error: `${err.code}: ${err.message}` });
      }
    }
    if (values.json) printJson(out);
    else for (const r of out) process.stdout.write(r.error ? `${r.id}: ${r.error}\n` : `${r.id}: queued again as job ${r.job}\n`);
    return failed > 0 ? 1 : 0;
  } finally {
    await store.close();
  }
}

async function replayWhere(store: Store, loaded: LoadedSettings, filter: DeliveryFilter, json: boolean): Promise<number> {
  const tty = process.stderr.isTTY === true;
  const result = await replayerFor(store, loaded).replayWhere(filter, {
    onProgress: tty ? (done, total) => process.stderr.write(`\r${bar(done, total)} ${done}/${total}`) : undefined,
  });
  if (tty && result.matched > 0) process.stderr.write('\n');
  if (json) printJson(result);
  else {
    process.stdout.write(`${result.matched} matched, ${result.replayed.length} replayed, ${result.skipped.length} skipped\n`);
    for (const s of result.skipped) process.stdout.write(`  ${s.id}: ${s.reason}\n`);
  }
  return result.skipped.length > 0 ? 1 : 0;
}

/** What a replay of these ids, or of this filter's matches, would hand to the connectors; nothing is queued. */
async function dryRun(store: Store, what: DeliveryFilter | number[], json: boolean): Promise<number> {
  const { rows, missing } = Array.isArray(what)
    ? await rowsOf((page) => listDeliveries(store.read.sql, page), what)
    : { rows: await everyRow((page) => listDeliveries(store.read.sql, { ...what, ...page })), missing: [] };
  if (json) printJson({ dry_run: true, matched: rows.length, replayed: [], skipped: [], missing, deliveries: rows.map(deliveryJson) });
  else {
    process.stdout.write(deliveriesTable(rows));
    for (const id of missing) process.stdout.write(`${id}: no delivery ${id}\n`);
    const found = Array.isArray(what) ? `${rows.length} of ${what.length} deliveries found` : `${rows.length} deliveries match`;
    process.stdout.write(`${found}; nothing replayed (--dry-run)\n`);
  }
  return missing.length > 0 ? 1 : 0;
}

function bar(done: number, total: number, width = 30): string {
  const filled = Math.round((done / Math.max(1, total)) * width);
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`;
}
