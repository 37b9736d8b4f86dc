/**
 * Retention: the delivery log and the inbound log keep `store.retention_days`
 * of history. Pruned at start and then hourly; what is still in flight
 * (accepted or failed deliveries, pending messages, queued or running jobs)
 * is never pruned, however old. Old inbound messages lose their text and
 * attempts but keep their row: it is the dedup key, and a mailbox rescanned a
 * year later must not post its old mail again.
 */
import type { Logger } from 'pino';
import type { Store } from '../store/database.ts';

export const PRUNE_EVERY_MS = 60 * 60 * 1000;

export interface PruneCounts {
  deliveries: number;
  inbound: number;
  skipped: number;
  jobs: number;
}

export function pruneOlderThan(store: Store, cutoff: number): PruneCounts {
  return store.transaction(() => {
    const run = (sql: string) => store.sqlite.prepare(sql).run(cutoff).changes;
    const deliveries = run(`delete from deliveries where received_at < ? and status in ('delivered', 'duplicate', 'rejected', 'dead')`);
    run(`delete from inbound_attempts where ended_at < ?`);
    const inbound = run(
      `update inbound_messages set body = '', full_text = null, variables = null
       where received_at < ? and status in ('posted', 'dead') and (body != '' or full_text is not null)`,
    );
    const skipped = run(`delete from skipped_inbound where received_at < ?`);
    const jobs = run(`delete from jobs where updated_at < ? and status in ('done', 'dead')`);
    run(`delete from proxy_message_posts where created_at < ?`);
    return { deliveries, inbound, skipped, jobs };
  });
}

/** Prunes now and every hour until the returned function is called. */
export function startRetention(store: Store, retentionDays: number, logger: Logger, now: () => number = Date.now): () => void {
  const prune = () => {
    try {
      const counts = pruneOlderThan(store, now() - retentionDays * 24 * 60 * 60 * 1000);
      if (Object.values(counts).some((n) => n > 0)) logger.info({ ...counts, retention_days: retentionDays }, 'old records pruned');
    } catch (err) {
      logger.error({ err }, 'pruning old records failed');
    }
  };
  prune();
  const timer = setInterval(prune, PRUNE_EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}
