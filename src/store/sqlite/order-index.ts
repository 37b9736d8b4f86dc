/**
 * What SQLite's order index (`jobs_order`, on `order_key`) holds: the live
 * jobs whose order is read from the store. That leaves out one kind, the
 * bridge's delivery of a webhook (`DELIVER_JOB`; a test holds the two
 * equal). Its key is the platform's thread, a random key, so every delivery
 * queued wrote a page of the index of its own: a tenth of the receiver's
 * accepting time at saturation (docs/benchmarks.md at 65810b0, "Deliveries
 * out of the order index"). On SQLite nothing reads a delivery's order from the store:
 * its one gateway keeps a thread's deliveries in order with its per-thread
 * locks and its claims' due order, and a take checks the kind's queue
 * instead (jobs-repo.ts `take`). The key is still written, for a copy to
 * PostgreSQL, whose replicas read it. Kept apart from schema.ts so the
 * repositories load no drizzle.
 */

export const UNINDEXED_ORDER_KIND = 'connector.deliver';

/** The index's condition, which a query names word for word so that SQLite knows the index answers it. */
export const ORDERED_UNFINISHED_JOB = `finished_at is null and kind <> '${UNINDEXED_ORDER_KIND}'`;
