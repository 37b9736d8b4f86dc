/**
 * A filter on the deliveries' status, as each store reads it fastest. No index of PostgreSQL's deliveries names
 * `status`, so that a delivery's success updates its row in place (migrations/postgres/0013); the statuses an operator
 * looks up among many rows (rejected, failed, dead) are indexed through `flagged_status`, a copy of `status` kept only
 * for them. A filter whose statuses are all flagged names that column as well, and PostgreSQL reads the index
 * (deliveries_flagged). SQLite indexes `status` itself (deliveries_status) and gets the plain filter.
 */
import type { Clause } from './sql-filters.ts';
import type { SqlDialect } from './sql.ts';
import type { DeliveryStatus } from './statuses.ts';

/** The statuses PostgreSQL's `flagged_status` holds (the generated column of migrations/postgres/0013). */
export const FLAGGED_DELIVERY_STATUSES: readonly DeliveryStatus[] = ['rejected', 'failed', 'dead'];

const isFlagged = (s: DeliveryStatus) => FLAGGED_DELIVERY_STATUSES.includes(s);

/** `status in (…)` of deliveries (`alias.` before the columns when given); undefined when no status is named. */
export function deliveryStatusIn(dialect: SqlDialect, statuses: readonly DeliveryStatus[] | undefined, alias?: string): Clause | undefined {
  if (statuses === undefined || statuses.length === 0) return undefined;
  const column = (name: string) => (alias === undefined ? name : `${alias}.${name}`);
  const marks = statuses.map(() => '?').join(', ');
  const plain: Clause = [`${column('status')} in (${marks})`, [...statuses]];
  if (dialect !== 'postgres' || !statuses.every(isFlagged)) return plain;
  return [`${plain[0]} and ${column('flagged_status')} in (${marks})`, [...statuses, ...statuses]];
}
