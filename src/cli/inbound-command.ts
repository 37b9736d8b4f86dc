/**
 * `threadgate inbound list [filters] [--json]`, `inbound show <id>` and
 * `inbound retry <id>… | --status dead [filters] [--dry-run]`: the external →
 * platform direction of the log, with each message's platform POST attempts;
 * retry puts dead messages back (a running `serve` posts them within a second).
 */
import { NotReplayableError, RecordNotFoundError } from '../bridge/errors.ts';
import { listInbound } from '../store/log-queries.ts';
import { configOption, parse } from './args.ts';
import { UsageError } from './errors.ts';
import { deadOnly, filterOptions, inboundFilter, parseId } from './log-filters.ts';
import { replayerFor } from './replayer-for.ts';
import { openConfiguredStore } from './store-access.ts';
import { formatTable, isoTime, printJson } from './table.ts';

const USAGE = 'usage: threadgate inbound list [--status pending|posted|dead] [--connector N] [--thread T] [--since …] [--until …] [--limit N] [--json]\n' +
  '       threadgate inbound show <id> [--json]\n       threadgate inbound retry <id>…\n' +
  '       threadgate inbound retry --status dead [--connector N] [--thread T] [--since …] [--until …] [--dry-run] [--json]';

export async function inboundCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, { ...configOption, ...filterOptions, 'dry-run': { type: 'boolean' } });
  const [verb, ...rest] = positionals;
  if (verb === 'retry' && rest.length === 0 && values.status !== undefined) return retryWhere(values);
  if (values['dry-run']) throw new UsageError('--dry-run goes with inbound retry --status dead');
  const filter = verb === 'list' && rest.length === 0 ? inboundFilter(values) : undefined;
  if (!filter && !(verb === 'show' && rest.length === 1) && !(verb === 'retry' && rest.length > 0)) throw new UsageError(USAGE);
  const ids = verb === 'list' ? [] : rest.map((r) => parseId(r, 'an inbound message id'));
  const { loaded, store } = await openConfiguredStore(values.config);
  try {
    if (filter) {
      const rows = await listInbound(store.read.sql, filter);
      if (values.json) printJson(rows.map((r) => ({ ...r, receivedAt: isoTime(r.receivedAt), postedAt: isoTime(r.postedAt) })));
      else process.stdout.write(formatTable(
        ['id', 'received', 'connector', 'kind', 'status', 'tries', 'thread', 'external id', 'error'],
        rows.map((r) => [r.id, isoTime(r.receivedAt), r.connector, r.kind, r.status, r.attempts, r.threadId, r.externalId, r.lastError]),
      ));
      return 0;
    }
    if (verb === 'show') {
      const message = await store.read.inbound.byId(ids[0] as number);
      if (!message) {
        process.stderr.write(`threadgate inbound: no inbound message ${ids[0]}\n`);
        return 1;
      }
      const attempts = (await store.read.attempts.ofInbound(message.id)).map((a) => ({ ...a, startedAt: isoTime(a.startedAt), endedAt: isoTime(a.endedAt) }));
      const record = { ...message, receivedAt: isoTime(message.receivedAt), attempts };
      if (values.json) printJson(record);
      else {
        const { attempts: tries, body, fullText: _full, ...fields } = record;
        for (const [k, v] of Object.entries(fields)) process.stdout.write(`${k.padEnd(17)} ${v === null ? '-' : typeof v === 'object' ? JSON.stringify(v) : String(v)}\n`);
        process.stdout.write(`\nbody\n${body}\n\nattempts\n${formatTable(['#', 'job', 'started', 'ended', 'outcome', 'status', 'error'], tries.map((a) => [a.attempt, a.jobId, a.startedAt, a.endedAt, a.outcome, a.status, a.error]))}`);
      }
      return 0;
    }
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

/** Every dead message the filter matches, back to pending with its thread's flush queued; `--dry-run` only lists them. */
async function retryWhere(values: Parameters<typeof inboundFilter>[0] & { config?: string | undefined; json?: boolean | undefined; 'dry-run'?: boolean | undefined }): Promise<number> {
  const filter = deadOnly(inboundFilter(values), 'messages');
  const dryRun = values['dry-run'] === true;
  const { loaded, store } = await openConfiguredStore(values.config);
  try {
    const result = await replayerFor(store, loaded).retryInboundWhere(filter, { dryRun });
    if (values.json) printJson({ dry_run: dryRun, ...result });
    else {
      const lines = dryRun ? result.matched.map((id) => `${id}: dead`) : result.retried.map((r) => `${r.id}: queued again as job ${r.job}`);
      for (const line of [...lines, ...result.skipped.map((s) => `${s.id}: ${s.reason}`)]) process.stdout.write(`${line}\n`);
      process.stdout.write(dryRun
        ? `${result.matched.length} dead message(s) match; nothing queued (--dry-run)\n`
        : `${result.matched.length} dead message(s) matched, ${result.retried.length} queued again, ${result.skipped.length} skipped\n`);
    }
    return result.skipped.length > 0 ? 1 : 0;
  } finally {
    await store.close();
  }
}
