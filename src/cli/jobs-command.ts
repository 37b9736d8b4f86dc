/**
 * `threadgate jobs list [filters] [--json]` and `threadgate jobs retry <id>… |
 * --status dead [--kind K] [--connector N] [--since …] [--until …] [--dry-run]
 * [--json]`: the job queue seen by an operator, and dead jobs queued again
 * with a fresh budget (attempts from 0, a new `jobs.retry_for` deadline);
 * `--dry-run` lists them instead. Works on the store beside a running
 * `serve`, whose job runner picks them up at its next look at the table.
 */
import { JobNotDeadError, JobNotFoundError } from '../jobs/errors.ts';
import { JobQueue } from '../jobs/queue.ts';
import type { Store } from '../store/database.ts';
import { listJobs, type JobFilter } from '../store/job-queries.ts';
import { JOB_STATUSES } from '../store/statuses.ts';
import { configOption, parse, subcommandError } from './args.ts';
import { UsageError } from './errors.ts';
import { commandHelp, configHelp, helpFor, pick, usageLines } from './help.ts';
import { assertKnownConnector } from './known-connectors.ts';
import { deadOnly, filterHelp, filterOptions, jobFilter, parseId } from './log-filters.ts';
import { everyRow, jobJson, jobsTable, rowsOf } from './log-tables.ts';
import { openConfiguredStore } from './store-access.ts';
import { printJson } from './table.ts';

export const OPTIONS = { ...configOption, ...filterOptions, kind: { type: 'string' }, 'dry-run': { type: 'boolean' } } as const;

const DESCRIBE = {
  ...configHelp,
  ...filterHelp(JOB_STATUSES),
  since: { value: '2h|ISO', text: 'only jobs queued from this time on: a duration ago (30m, 2h, 7d) or an ISO time' },
  until: { value: '2h|ISO', text: 'only jobs queued before this time: a duration ago or an ISO time' },
  kind: { value: 'K', text: 'only jobs of this kind: connector.deliver, platform.post_messages, …' },
  'dry-run': { text: 'list the jobs that would be queued again, as a table, and change nothing' },
};

export const HELP = [
  commandHelp({
    name: 'jobs list',
    summary: 'the job queue, newest first',
    usage: ['jobs list [--status S] [--kind K] [--connector NAME] [--since 2h|ISO] [--until 2h|ISO] [--limit N] [--json]'],
    options: pick(OPTIONS, 'config', 'status', 'kind', 'connector', 'since', 'until', 'limit', 'json'),
    describe: DESCRIBE,
    examples: ['jobs list --status dead', 'jobs list --kind connector.deliver --connector helpdesk --json'],
  }),
  commandHelp({
    name: 'jobs retry',
    summary: 'dead jobs queued again with a fresh budget (a running serve runs them)',
    usage: ['jobs retry <id>… [--dry-run] [--json]', 'jobs retry --status dead [--kind K] [--connector NAME] [--since 2h|ISO] [--until 2h|ISO] [--dry-run] [--json]'],
    options: pick(OPTIONS, 'config', 'status', 'kind', 'connector', 'since', 'until', 'dry-run', 'json'),
    describe: { ...DESCRIBE, status: { value: 'dead', text: 'retry every dead job the other filters match; only dead ones are retried' } },
    examples: ['jobs retry 12', 'jobs retry --status dead --kind connector.deliver --since 6h --dry-run'],
  }),
];

const USAGE = usageLines(HELP);
/** The forms of one subcommand, for its usage errors. */
const usageOf = (verb: string) => usageLines(helpFor(HELP, [verb]));

interface Output {
  config?: string | undefined;
  json?: boolean | undefined;
}

export async function jobsCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, OPTIONS);
  const [verb, ...rest] = positionals;
  if (verb !== 'list' && verb !== 'retry') throw subcommandError('jobs', ['list', 'retry'], verb, USAGE);
  const filter = jobFilter(values);
  const dryRun = values['dry-run'] === true;
  if (verb === 'list') {
    if (rest.length > 0) throw new UsageError(`jobs list takes no arguments, got "${rest.join(' ')}" (filters are options: --status, --kind, …)`, { usage: usageOf('list') });
    if (dryRun) throw new UsageError('--dry-run goes with jobs retry, not jobs list', { usage: usageOf('retry') });
    return withStore(values, filter.connector, (store) => list(store, filter, values));
  }
  if (values.status !== undefined) {
    if (rest.length > 0) throw new UsageError('jobs retry takes job ids or --status dead, not both', { usage: usageOf('retry') });
    const dead = deadOnly(filter, 'jobs');
    return withStore(values, filter.connector, (store) => retryWhere(store, dead, dryRun, values));
  }
  if (rest.length === 0) throw new UsageError('jobs retry takes job ids, or --status dead to retry every dead job', { usage: usageOf('retry') });
  const stray = (['kind', 'connector', 'since', 'until'] as const).find((k) => values[k] !== undefined);
  if (stray) throw new UsageError(`--${stray} filters what --status dead matches; with job ids, give no filter`, { usage: usageOf('retry') });
  if (values.limit !== undefined) throw new UsageError('--limit does not apply to a retry: every match is retried', { usage: usageOf('retry') });
  const ids = rest.map((r) => parseId(r, 'a job id'));
  return withStore(values, undefined, (store) => (dryRun ? dryRunIds(store, ids, values) : retryIds(store, ids, values)));
}

async function withStore(values: Output, connector: string | undefined, work: (store: Store) => Promise<number>): Promise<number> {
  const { loaded, store } = await openConfiguredStore(values.config);
  try {
    await assertKnownConnector(store, loaded, connector);
    return await work(store);
  } finally {
    await store.close();
  }
}

async function list(store: Store, filter: JobFilter, values: Output): Promise<number> {
  const rows = await listJobs(store.read.sql, filter);
  if (values.json) printJson(rows.map(jobJson));
  else process.stdout.write(jobsTable(rows));
  return 0;
}

async function retryWhere(store: Store, filter: Omit<JobFilter, 'status' | 'limit'>, dryRun: boolean, values: Output): Promise<number> {
  if (dryRun) {
    const rows = await everyRow((page) => listJobs(store.read.sql, { ...filter, status: ['dead'], ...page }));
    if (values.json) printJson({ dry_run: true, matched: rows.length, queued: 0, jobs: rows.map(jobJson) });
    else process.stdout.write(`${jobsTable(rows)}${rows.length} dead job(s) match; nothing queued (--dry-run)\n`);
    return 0;
  }
  const jobs = await new JobQueue(store).retryDeadWhere(filter);
  if (values.json) printJson({ dry_run: false, matched: jobs.length, queued: jobs.length, jobs });
  else {
    for (const job of jobs) process.stdout.write(`${job.id} ${job.kind}: queued again\n`);
    process.stdout.write(`${jobs.length} dead job(s) queued again\n`);
  }
  return 0;
}

/** The named jobs a retry would queue again (the dead ones); nothing is changed. */
async function dryRunIds(store: Store, ids: number[], values: Output): Promise<number> {
  const { rows, missing } = await rowsOf((page) => listJobs(store.read.sql, page), ids);
  const notDead = rows.filter((r) => r.status !== 'dead');
  if (values.json) printJson({ dry_run: true, matched: rows.length - notDead.length, queued: 0, missing, jobs: rows.map(jobJson) });
  else {
    process.stdout.write(jobsTable(rows));
    for (const id of missing) process.stdout.write(`${id}: no job ${id}\n`);
    for (const r of notDead) process.stdout.write(`${r.id}: ${r.status}, not dead: it would not be queued again\n`);
    process.stdout.write(`${rows.length - notDead.length} of ${ids.length} named job(s) dead, to be queued again; nothing queued (--dry-run)\n`);
  }
  return missing.length + notDead.length > 0 ? 1 : 0;
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
