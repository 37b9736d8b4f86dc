/** How many deliveries, inbound messages and jobs are in each status, every status listed (zero when none). */
import type { Sql } from './sql.ts';
import { DELIVERY_STATUSES, INBOUND_STATUSES, JOB_STATUSES, type DeliveryStatus, type InboundStatus, type JobStatus } from './statuses.ts';

async function countBy<S extends string>(db: Sql, table: string, statuses: readonly S[]): Promise<Record<S, number>> {
  const counts = Object.fromEntries(statuses.map((s) => [s, 0])) as Record<S, number>;
  const rows = await db.all<{ status: S; n: number }>(`select status, count(*) as n from ${table} group by status`);
  for (const r of rows) counts[r.status] = Number(r.n);
  return counts;
}

export function countDeliveriesByStatus(db: Sql): Promise<Record<DeliveryStatus, number>> {
  return countBy(db, 'deliveries', DELIVERY_STATUSES);
}

export function countInboundByStatus(db: Sql): Promise<Record<InboundStatus, number>> {
  return countBy(db, 'inbound_messages', INBOUND_STATUSES);
}

export function countJobsByStatus(db: Sql): Promise<Record<JobStatus, number>> {
  return countBy(db, 'jobs', JOB_STATUSES);
}

/** Jobs per kind and status (the statuses a kind has none of are left out). */
export async function countJobsByKindAndStatus(db: Sql): Promise<{ kind: string; status: JobStatus; n: number }[]> {
  const rows = await db.all<{ kind: string; status: JobStatus; n: number }>(`select kind, status, count(*) as n from jobs group by kind, status`);
  return rows.map((r) => ({ ...r, n: Number(r.n) }));
}
