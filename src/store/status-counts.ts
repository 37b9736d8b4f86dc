/** How many deliveries, inbound messages and jobs are in each status, every status listed (zero when none). */
import type { Store } from './database.ts';
import { DELIVERY_STATUSES, INBOUND_STATUSES, JOB_STATUSES, type DeliveryStatus, type InboundStatus, type JobStatus } from './statuses.ts';

export function countBy<S extends string>(store: Store, table: string, statuses: readonly S[]): Record<S, number> {
  const counts = Object.fromEntries(statuses.map((s) => [s, 0])) as Record<S, number>;
  const rows = store.sqlite.prepare(`select status, count(*) as n from ${table} group by status`).all() as { status: S; n: number }[];
  for (const r of rows) counts[r.status] = r.n;
  return counts;
}

export function countDeliveriesByStatus(store: Store): Record<DeliveryStatus, number> {
  return countBy(store, 'deliveries', DELIVERY_STATUSES);
}

export function countInboundByStatus(store: Store): Record<InboundStatus, number> {
  return countBy(store, 'inbound_messages', INBOUND_STATUSES);
}

export function countJobsByStatus(store: Store): Record<JobStatus, number> {
  return countBy(store, 'jobs', JOB_STATUSES);
}
