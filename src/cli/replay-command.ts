/**
 * `threadgate replay <id>…` and `threadgate replay --status failed|dead
 * [--connector N] [--since …] [--dry-run]`: hand stored deliveries to their
 * connectors again (bypassing dedup; recorded as replay attempts). Works on
 * the store beside a running `serve`, whose job runner picks the jobs up.
 */
import { NotReplayableError, RecordNotFoundError } from '../bridge/errors.ts';
import { configOption, parse } from './args.ts';
import { UsageError } from './errors.ts';
import { deliveryFilter, filterOptions, parseId } from './log-filters.ts';
import { replayerFor } from './replayer-for.ts';
import { openConfiguredStore } from './store-access.ts';
import { forwardCommand } from './forward-command.ts';
import { printJson } from './table.ts';

const USAGE =
  'usage: threadgate replay <id>… [--to URL --secret S | --to URL --sign-with-live-secret]\n' +
  '       threadgate replay --status S [--connector N] [--event E] [--since …] [--until …] [--dry-run] [--json]\n' +
  '       threadgate replay --from file.ndjson --to URL (--secret S | --sign-with-live-secret)';

export async function replayCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, {
    ...configOption,
    ...filterOptions,
    'dry-run': { type: 'boolean' },
    to: { type: 'string' },
    secret: { type: 'string' },
    'sign-with-live-secret': { type: 'boolean' },
    from: { type: 'string' },
  });
  if (values.from !== undefined || values.to !== undefined) return forwardCommand(values, positionals);
  if (values.secret !== undefined || values['sign-with-live-secret']) throw new UsageError('--secret and --sign-with-live-secret go with --to');
  const byFilter = values.status !== undefined;
  if (byFilter === positionals.length > 0 || (!byFilter && values['dry-run'])) throw new UsageError(USAGE);
  if (values.limit !== undefined) throw new UsageError('--limit does not apply to replay: every match is replayed');
  const ids = positionals.map((p) => parseId(p, 'a delivery id'));
  const filter = byFilter ? deliveryFilter(values) : undefined;

  const { loaded, store } = await openConfiguredStore(values.config);
  try {
    const replayer = replayerFor(store, loaded);
    if (filter) {
      const tty = process.stderr.isTTY === true;
      const result = await replayer.replayWhere(filter, {
        dryRun: values['dry-run'] === true,
        onProgress: tty ? (done, total) => process.stderr.write(`\r${bar(done, total)} ${done}/${total}`) : undefined,
      });
      if (tty && result.matched > 0 && !values['dry-run']) process.stderr.write('\n');
      if (values.json) printJson(result);
      else if (values['dry-run']) process.stdout.write(`${result.matched} deliveries match; nothing replayed (--dry-run)\n`);
      else {
        process.stdout.write(`${result.matched} matched, ${result.replayed.length} replayed, ${result.skipped.length} skipped\n`);
        for (const s of result.skipped) process.stdout.write(`  ${s.id}: ${s.reason}\n`);
      }
      return result.skipped.length > 0 ? 1 : 0;
    }
    let failed = 0;
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

function bar(done: number, total: number, width = 30): string {
  const filled = Math.round((done / Math.max(1, total)) * width);
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`;
}
