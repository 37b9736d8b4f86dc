/**
 * Reading the job table for operators: jobs by status, kind, connector and
 * time, newest first, with the same id cursor (`before`) as the delivery log;
 * and every match at once, oldest first, for a bulk retry.
 */
import type { Sql, SqlDialect } from './sql.ts';
import { eq, MAX_PAGE, oneOf, where } from './sql-filters.ts';
import type { JobStatus } from './statuses.ts';

export interface JobFilter {
  status?: JobStatus[];
  kind?: string;
  /** The connector the job works for (its payload's `connector`). */
  connector?: string;
  /** Queued at or after (Unix ms). */
  since?: number;
  /** Queued before (Unix ms). */
  until?: number;
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
  /** When it is given up (null: a job older than deadlines, ended by its attempt cap only). */
  giveUpAt: number | null;
  createdAt: number;
  updatedAt: number;
  finishedAt: number | null;
}

export interface JobRef {
  id: number;
  kind: string;
}

/** The connector a job's JSON payload names, in each dialect's JSON functions. */
const PAYLOAD_CONNECTOR: Record<SqlDialect, string> = {
  sqlite: `json_extract(payload, '$.connector')`,
  postgres: `(payload::jsonb ->> 'connector')`,
};

function jobWhere(f: JobFilter, dialect: SqlDialect): { sql: string; params: unknown[] } {
  return where([
    oneOf('status', f.status),
    eq('kind', f.kind),
    eq(PAYLOAD_CONNECTOR[dialect], f.connector),
    eq('created_at', f.since, '>='),
    eq('created_at', f.until, '<'),
    eq('id', f.before, '<'),
  ]);
}

export async function listJobs(db: Sql, f: JobFilter): Promise<JobSummary[]> {
  const { sql, params } = jobWhere(f, db.dialect);
  const rows = await db.all<Omit<JobSummary, 'payload'> & { payload: string }>(
    `select id, kind, payload, status, attempts, max_attempts as "maxAttempts", last_error as "lastError", run_at as "runAt",
       give_up_at as "giveUpAt", created_at as "createdAt", updated_at as "updatedAt", finished_at as "finishedAt"
     from jobs ${sql} order by id desc limit ?`,
    [...params, Math.min(f.limit ?? 50, MAX_PAGE)],
  );
  return rows.map((r) => ({ ...r, payload: JSON.parse(r.payload) as unknown }));
}

/** Every job the filter matches (`before` and `limit` ignored), oldest first. */
export async function matchingJobs(db: Sql, f: JobFilter): Promise<JobRef[]> {
  const { sql, params } = jobWhere({ ...f, before: undefined }, db.dialect);
  return db.all<JobRef>(`select id, kind from jobs ${sql} order by id asc`, params);
}
