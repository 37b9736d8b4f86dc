/**
 * Gauges of `/metrics` read from the store at scrape time, for the alerts of
 * deploy/prometheus/alerts.yml: whether the store answers, the dead letters
 * waiting for an operator, and how long the queued job of each kind that is
 * due longest has waited past its due time — the built-in alerts' conditions
 * (src/alerts/conditions.ts), per replica and kind. Each query is one index
 * range (the queries: store/health-queries.ts). While the store does not
 * answer, its gauges are left empty and the scrape still succeeds, so
 * `threadgate_store_up` 0 reaches Prometheus instead of a failed scrape.
 */
import { Gauge, type Registry } from './prom-client.ts';
import { DEAD_LETTER_RECORDS, deadLettersByConnector, oldestDueByKind } from '../store/health-queries.ts';
import type { Sql } from '../store/sql.ts';
import type { HealthReport } from './gateway-health.ts';

export interface StoreGaugeSources {
  registry: Registry;
  /** The store's read side. */
  sql: () => Sql;
  /** The health report of the scrape under way (shared with the other gauges). */
  report: () => Promise<HealthReport>;
  /** The job kinds this gateway runs: each has a backlog series, 0 while none of it is due. */
  kinds: readonly string[];
  now?: () => number;
}

/** Reads `read`; undefined (and the gauge left empty) while the store does not answer. */
async function orNothing<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch {
    return undefined;
  }
}

export function addStoreGauges(s: StoreGaugeSources): void {
  const now = s.now ?? Date.now;
  new Gauge({
    name: 'threadgate_store_up',
    help: 'Whether the store answered at this scrape (1) or not (0); /readyz answers 503 while it does not.',
    registers: [s.registry],
    async collect() {
      this.set((await s.report()).checks.store === 'open' ? 1 : 0);
    },
  });
  new Gauge({
    name: 'threadgate_dead_letters',
    help: 'Dead-lettered records waiting for an operator, by connector and record (delivery: a webhook not delivered; inbound: a message not posted to the platform).',
    labelNames: ['connector', 'record'],
    registers: [s.registry],
    async collect() {
      this.reset();
      const rows = await orNothing(() => deadLettersByConnector(s.sql()));
      if (rows === undefined) return;
      // Every configured connector has both series (0 when none is dead), so a rise from nothing is seen as one.
      for (const connector of Object.keys((await s.report()).connectors)) {
        for (const record of Object.keys(DEAD_LETTER_RECORDS)) this.set({ connector, record }, 0);
      }
      for (const r of rows) this.set({ connector: r.connector, record: r.record }, r.n);
    },
  });
  new Gauge({
    name: 'threadgate_jobs_oldest_due_seconds',
    help: 'How long the queued job of each kind that is due longest has waited past its due time (0: none due); one waiting for its next try is not due.',
    labelNames: ['kind'],
    registers: [s.registry],
    async collect() {
      this.reset();
      const at = now();
      const rows = await orNothing(() => oldestDueByKind(s.sql(), at));
      if (rows === undefined) return;
      for (const kind of s.kinds) this.set({ kind }, 0);
      for (const r of rows) this.set({ kind: r.kind }, Math.max(0, (at - r.runAt) / 1000));
    },
  });
}
