/**
 * `threadgate jobs list [filters] [--json]` and `threadgate jobs retry <id>… |
 * --status dead [--kind K] [--connector N] [--since …] [--until …] [--dry-run]
 * [--json]`: the job queue seen by an operator, and dead jobs queued again
 * with a fresh budget (attempts from 0, a new `jobs.retry_for` deadline).
 * Works on the store beside a running `serve`, whose job runner picks them up
 * at its next look at the table.
 */
import { JobNotDeadError, JobNotFoundError } from '../jobs/errors.ts';
import { JobQueue } from '../jobs/queue.ts';
import type { Store } from '../store/database.ts';
import { listJobs, type JobFilter } from '../store/job-queries.ts';
import { configOption, parse } from './args.ts';
import { UsageError } from './errors.ts';
import { deadOnly, filterOptions, jobFilter, parseId } from './log-filters.ts';
import { openConfiguredStore } from './store-access.ts';
import { formatTable, isoTime, printJson } from './table.ts';

const USAGE =
  'usage: threadgate jobs list [--status queued|running|done|dead] [--kind K] [--connector N] [--since …] [--until …] [--limit N] [--json]\n' +
  '       threadgate jobs retry <id>… [--json]\n' +
  '       threadgate jobs retry --status dead [--kind K] [--connector N] [--since …] [--until …] [--dry-run] [--json]';

interface Output {
  config?: string | undefined;
  json?: boolean | undefined;
}

export async function jobsCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, { ...configOption, ...filterOptions, kind: { type: 'string' }, 'dry-run': { type: 'boolean' } });
  const [verb, ...rest] = positionals;
  const filter = jobFilter(values);
  const dryRun = values['dry-run'] === true;
  if (verb === 'list' && rest.length === 0 && !dryRun) return withStore(values, (store) => list(store, filter, values));
  if (verb === 'retry' && rest.length === 0 && values.status !== undefined) {
    const dead = deadOnly(filter, 'jobs');
    return withStore(values, (store) => retryWhere(store, dead, dryRun, values));
  }
  if (verb === 'retry' && rest.length > 0 && Object.keys(filter).length === 0 && !dryRun) {
    const ids = rest.map((r) => parseId(r, 'a job id'));
    return withStore(values, (store) => retryIds(store, ids, values));
  }
  throw new UsageError(USAGE);
}

async function withStore(values: Output, work: (store: Store) => Promise<number>): Promise<number> {
  const { store } = await openConfiguredStore(values.config);
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

async function list(store: Store, filter: JobFilter, values: Output): Promise<number> {
  const rows = await listJobs(store.read.sql, filter);
  if (values.json) {
    printJson(rows.map((r) => ({ ...r, runAt: isoTime(r.runAt), giveUpAt: isoTime(r.giveUpAt), createdAt: isoTime(r.createdAt), updatedAt: isoTime(r.updatedAt), finishedAt: isoTime(r.finishedAt) })));
    return 0;
  }
  process.stdout.write(formatTable(
    ['id', 'kind', 'status', 'tries', 'connector', 'queued', 'gives up', 'last error'],
    rows.map((r) => [r.id, r.kind, r.status, `${r.attempts}/${r.maxAttempts}`, connectorOf(r.payload), isoTime(r.createdAt), isoTime(r.giveUpAt), r.lastError]),
  ));
  return 0;
}

async function retryWhere(store: Store, filter: Omit<JobFilter, 'status' | 'limit'>, dryRun: boolean, values: Output): Promise<number> {
  const jobs = await new JobQueue(store).retryDeadWhere(filter, { dryRun });
  if (values.json) printJson({ dry_run: dryRun, matched: jobs.length, queued: dryRun ? 0 : jobs.length, jobs });
  else {
    for (const job of jobs) process.stdout.write(`${job.id} ${job.kind}: ${dryRun ? 'dead' : 'queued again'}\n`);
    process.stdout.write(dryRun ? `${jobs.length} dead job(s) match; nothing queued (--dry-run)\n` : `${jobs.length} dead job(s) queued again\n`);
  }
  return 0;
}

async function retryIds(store: Store, ids: number[], values: Output): Promise<number> {
  const queue = new JobQueue(store);
  const out: { id: number; kind?: string; error?: string }[] = [];
  for (const id of ids) {
    try {
      out.push({ id, kind: (await queue.retryDead(id)).kind });
    } catch (err) {
      if (!(err instanceof JobNotFoundError || err instanceof JobNotDeadError)) throw err;
      out.push({ id, error: `${err.code}: ${err.message}` });
    }
  }
  if (values.json) printJson(out);
  else for (const r of out) process.stdout.write(r.error ? `${r.id}: ${r.error}\n` : `${r.id} ${r.kind}: queued again\n`);
  return out.some((r) => r.error) ? 1 : 0;
}

function connectorOf(payload: unknown): string | null {
  const connector = (payload as { connector?: unknown } | null)?.connector;
  return typeof connector === 'string' ? connector : null;
}
