/**
 * The job queue seen by an operator: jobs by status (dead ones, typically),
 * kind, connector and time, and a retry of dead jobs — one by id, or every one
 * a filter matches — with a fresh budget (attempts from 0, a new deadline).
 * The runner is woken so they run now rather than at its next look at the table.
 */
import { z } from 'zod';
import { listJobs, type JobSummary } from '../../store/job-queries.ts';
import { JOB_STATUSES } from '../../store/statuses.ts';
import { deadStatus, DEFAULT_LIMIT, dryRun, IdParams, iso, IsoTime, JobQueued, pageOf, pageParams, statusList, textFilter, timeParam, toPage } from './fields.ts';
import { component, route } from './route-table.ts';

/** The filters jobs are chosen by, here and in a bulk retry. */
const jobFilterFields = {
  kind: textFilter('The job kind, e.g. connector.deliver or platform.post_messages.'),
  connector: textFilter('The connector the job works for.'),
  since: timeParam('Queued at or after: a duration ago (2h) or an ISO time.').optional(),
  until: timeParam('Queued before: a duration ago or an ISO time.').optional(),
};

export const JobQuery = z.strictObject({ status: statusList(JOB_STATUSES).optional(), ...jobFilterFields, ...pageParams });

const JobRetryRequest = component('JobRetryRequest', z.strictObject({ status: deadStatus, ...jobFilterFields, dry_run: dryRun }));

const JobRetryResult = component(
  'JobRetryResult',
  z.object({
    dry_run: z.boolean(),
    matched: z.number().int().meta({ description: 'Dead jobs the filter matched.' }),
    queued: z.number().int().meta({ description: 'Of those, queued again (0 on a dry run).' }),
    jobs: z.array(z.object({ id: z.number().int(), kind: z.string() })).meta({ description: 'The matched jobs, oldest first.' }),
  }),
);

const JobView = component(
  'Job',
  z.object({
    id: z.number().int(),
    kind: z.string(),
    status: z.enum(JOB_STATUSES),
    attempts: z.number().int(),
    max_attempts: z.number().int().meta({ description: 'A safety cap; the deadline (give_up_at) normally ends the retries.' }),
    give_up_at: IsoTime.nullable().meta({ description: 'No try starts after this (jobs.retry_for from when it was queued or retried); null for a job older than deadlines.' }),
    last_error: z.string().nullable(),
    payload: z.unknown().meta({ description: 'What the job acts on (connector, delivery or message ids).' }),
    run_at: IsoTime,
    created_at: IsoTime,
    updated_at: IsoTime,
    finished_at: IsoTime.nullable(),
  }),
);

const JobPage = component('JobPage', pageOf(JobView));

const jobView = (j: JobSummary): z.infer<typeof JobView> => ({
  id: j.id,
  kind: j.kind,
  status: j.status,
  attempts: j.attempts,
  max_attempts: j.maxAttempts,
  give_up_at: iso(j.giveUpAt),
  last_error: j.lastError,
  payload: j.payload,
  run_at: iso(j.runAt) as string,
  created_at: iso(j.createdAt) as string,
  updated_at: iso(j.updatedAt) as string,
  finished_at: iso(j.finishedAt),
});

export const jobRoutes = [
  route({
    method: 'GET',
    path: '/jobs',
    operationId: 'listJobs',
    tag: 'jobs',
    summary: 'List jobs, newest first (status=dead for the dead-letter list)',
    query: JobQuery,
    response: JobPage,
    async handle({ query }, { store }) {
      const { limit = DEFAULT_LIMIT, ...filter } = query;
      const rows = await listJobs(store.read.sql, { ...filter, limit });
      return toPage(rows, limit, async (before) => (await listJobs(store.read.sql, { ...filter, before, limit: 1 })).length > 0, jobView);
    },
  }),
  route({
    method: 'POST',
    path: '/jobs/:id/retry',
    operationId: 'retryJob',
    tag: 'jobs',
    summary: 'Run a dead job again from a fresh attempt count',
    description: '409 TG_JOB_NOT_DEAD unless the job is dead.',
    params: IdParams,
    status: 202,
    response: JobQueued,
    errors: [404, 409],
    async handle({ params }, { bridge }) {
      const job = await bridge.queue.retryDead(params.id);
      bridge.runner.notify(job.kind);
      return { job_id: job.id };
    },
  }),
  route({
    method: 'POST',
    path: '/jobs/retry',
    operationId: 'retryJobsWhere',
    tag: 'jobs',
    summary: 'Run every dead job a filter matches again, each from a fresh attempt count and deadline',
    description: 'All in one transaction, oldest first; `dry_run` only counts. `status: dead` is required.',
    body: JobRetryRequest,
    response: JobRetryResult,
    async handle({ body }, { bridge, logger }) {
      const { status: _dead, dry_run: dryRun, ...filter } = body;
      const jobs = await bridge.queue.retryDeadWhere(filter, { dryRun });
      if (!dryRun) for (const kind of new Set(jobs.map((j) => j.kind))) bridge.runner.notify(kind);
      logger.info({ event: 'jobs_bulk_retry', matched: jobs.length, dry_run: dryRun }, 'dead jobs retried');
      return { dry_run: dryRun, matched: jobs.length, queued: dryRun ? 0 : jobs.length, jobs };
    },
  }),
];
