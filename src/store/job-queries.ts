/**
 * Reading the job table for operators: jobs by status and kind, newest
 * first, with the same id cursor (`before`) as the delivery log.
 */
import type { Store } from './database.ts';
import { eq, MAX_PAGE, oneOf, where } from './sql-filters.ts';
import type { JobStatus } from './statuses.ts';

export interface JobFilter {
  status?: JobStatus[];
  kind?: string;
  /** Only ids below this (the cursor of the next page). */
  before?: number;
  limit?: number;
}

export interface JobSummary {
  id: number;
  kind: string;
  /** The parsed JSON payload (which connector, delivery or messages the job acts on). */
  payload: unknown;
  status: JobStatus;
  attempts: number;
  maxAttempts: number;
  lastError: string | null;
  runAt: number;
  createdAt: number;
  updatedAt: number;
  finishedAt: number | null;
}

export function listJobs(store: Store, f: JobFilter): JobSummary[] {
  const { sql, params } = where([oneOf('status', f.status), eq('kind', f.kind), eq('id', f.before, '<')]);
  const rows = store.sqlite
    .prepare(
      `select id, kind, payload, status, attempts, max_attempts as maxAttempts, last_error as lastError, run_at as runAt,
         created_at as createdAt, updated_at as updatedAt, finished_at as finishedAt
       from jobs ${sql} order by id desc limit ?`,
    )
    .all(...params, Math.min(f.limit ?? 50, MAX_PAGE)) as (Omit<JobSummary, 'payload'> & { payload: string })[];
  return rows.map((r) => ({ ...r, payload: JSON.parse(r.payload) as unknown }));
}
