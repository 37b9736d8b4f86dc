/**
 * Retention: the delivery log and the inbound log keep `store.retention_days`
 * of history; refused webhooks (`rejected` deliveries) only
 * `store.refused.retention_hours` (or the retention days, if shorter). Pruned
 * at start and then hourly; what is still in flight (accepted or failed
 * deliveries, pending messages, queued or running jobs) is never pruned,
 * however old. Old inbound messages lose their text and attempts but keep
 * their row: it is the dedup key, and a mailbox rescanned a year later must
 * not post its old mail again. Delivery receipts go once their last change
 * is older than the retention. Files of the file store go once their links
 * expired (./files.ts sets the expiry within the retention), a batch per
 * write so a backlog of large rows never holds one long transaction.
 */
import type { Logger } from 'pino';
import type { Store } from '../store/database.ts';
import type { StoreLock } from './store-lock.ts';

export const PRUNE_EVERY_MS = 60 * 60 * 1000;
const HOUR_MS = 60 * 60 * 1000;
/** Files deleted per write: their bytes (up to a connector's per-file limit each) go in one transaction. */
export const FILE_PRUNE_BATCH = 100;

export interface PruneCounts {
  /** Deliveries deleted, refused ones included. */
  deliveries: number;
  refused: number;
  inbound: number;
  skipped: number;
  jobs: number;
  receipts: number;
}

export interface RetentionPeriods {
  retentionDays: number;
  refusedRetentionHours: number;
}

/** The periods of the `store` settings. */
export function retentionOf(settings: { retention_days: number; refused: { retention_hours: number } }): RetentionPeriods {
  return { retentionDays: settings.retention_days, refusedRetentionHours: settings.refused.retention_hours };
}

/** Prunes what is older than `cutoff`, and refused deliveries older than `refusedCutoff` (default: `cutoff`), whichever is later. */
export function pruneOlderThan(store: Store, cutoff: number, refusedCutoff: number = cutoff): Promise<PruneCounts> {
  return store.write(async (tx) => {
    const run = async (sql: string, before = cutoff) => (await tx.sql.run(sql, [before])).changes;
    const refused = await run(`delete from deliveries where received_at < ? and status = 'rejected'`, Math.max(cutoff, refusedCutoff));
    const finished = await run(`delete from deliveries where received_at < ? and status in ('delivered', 'skipped', 'duplicate', 'dead')`);
    await run(`delete from inbound_attempts where ended_at < ?`);
    const inbound = await run(
      `update inbound_messages set body = '', full_text = null, variables = null
       where received_at < ? and status in ('posted', 'dead') and (body != '' or full_text is not null)`,
    );
    const skipped = await run(`delete from skipped_inbound where received_at < ?`);
    const jobs = await run(`delete from jobs where updated_at < ? and status in ('done', 'dead')`);
    await run(`delete from proxy_message_posts where created_at < ?`);
    const receipts = await run(`delete from delivery_receipts where updated_at < ?`);
    return { deliveries: finished + refused, refused, inbound, skipped, jobs, receipts };
  });
}

/** Deletes every file expired at `now`, `batch` per write; how many went. */
export async function pruneExpiredFiles(store: Store, now: number, batch: number = FILE_PRUNE_BATCH): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await store.write((tx) => tx.files.pruneExpired(now, batch));
    total += deleted;
    if (deleted < batch) return total;
  }
}

/**
 * Prunes now and every hour until the returned function is called. That function resolves once a round under way
 * ended and released its lock (a gateway that closed its store first left the lock to a holder that was gone, and
 * the next replica's retention waited for its lease to run out); a round still waiting for the lock gives up.
 */
export function startRetention(store: Store, periods: RetentionPeriods, logger: Logger, now: () => number = Date.now, lock?: StoreLock): () => Promise<void> {
  // Replicas on one database prune one at a time (the next one in finds little left).
  const exclusive: StoreLock = lock ?? ((_name, fn) => fn());
  const stopping = new AbortController();
  const prune = async () => {
    try {
      const at = now();
      const counts = await exclusive(
        'retention',
        async () => ({
          ...(await pruneOlderThan(store, at - periods.retentionDays * 24 * HOUR_MS, at - periods.refusedRetentionHours * HOUR_MS)),
          files: await pruneExpiredFiles(store, at),
        }),
        stopping.signal,
      );
      if (Object.values(counts).some((n) => n > 0)) {
        logger.info({ ...counts, retention_days: periods.retentionDays, refused_retention_hours: periods.refusedRetentionHours }, 'old records pruned');
      }
    } catch (err) {
      // Stopped while another replica held the lock: nothing was pruned, nothing failed.
      if (!stopping.signal.aborted) logger.error({ err }, 'pruning old records failed');
    }
  };
  let round = prune();
  const timer = setInterval(() => void (round = prune()), PRUNE_EVERY_MS);
  timer.unref();
  return () => {
    clearInterval(timer);
    stopping.abort(); // a round still waiting for another replica's lock gives up
    return round;
  };
}
