/**
 * The conditions that hold now, from the gateway's one judgement of its
 * health (http/gateway-health.ts: what `/readyz` and the admin page say) and
 * the job queue's oldest due job:
 *
 *   store_unavailable   the store did not answer the health check's ping
 *   platform_auth       the platform refused the gateway's token
 *   connector_paused    a connector's platform posts wait for the token (per connector)
 *   connector_down      a connector is not ok: its own report, or its deliveries keep failing (per connector)
 *   backlog_old         a queued job has been due for longer than `backlog_age`
 */
import type { HealthReport } from '../http/gateway-health.ts';
import { oldestDueByKind } from '../store/health-queries.ts';
import type { Repos } from '../store/repos.ts';
import type { Condition } from './alert-model.ts';

const minutes = (ms: number) => (ms < 120_000 ? `${Math.round(ms / 1000)} s` : `${Math.round(ms / 60_000)} min`);

export function storeCondition(report: HealthReport): Condition[] {
  return report.checks.store.startsWith('unavailable') ? [{ kind: 'store_unavailable', connector: '', reason: `the store is ${report.checks.store}` }] : [];
}

/** What the report says, the store aside (each replica tells of its own store: `storeCondition`). */
export function healthConditions(report: HealthReport): Condition[] {
  const out: Condition[] = [];
  if (report.platform?.auth === 'refused') out.push({ kind: 'platform_auth', connector: '', reason: `the platform refuses the gateway's token (last: ${report.platform.last ?? 'unknown'})` });
  for (const [name, c] of Object.entries(report.connectors)) {
    if (c.paused) {
      out.push({ kind: 'connector_paused', connector: name, reason: `platform posts paused since ${c.paused.since}: the platform refused the token (${c.paused.status}): ${c.paused.reason}` });
    } else if (!c.ok) {
      const why = c.deliveries?.down
        ? `${c.deliveries.attempts} deliveries in a row failed since ${c.deliveries.since} (last: ${c.deliveries.last_error})`
        : `it reports itself unhealthy${typeof c.details.last_error === 'string' ? ` (last error: ${c.details.last_error})` : ''}`;
      out.push({ kind: 'connector_down', connector: name, reason: why });
    }
  }
  return out;
}

export async function backlogCondition(read: Repos, now: number, backlogAgeMs: number): Promise<Condition[]> {
  const oldest = (await oldestDueByKind(read.sql, now)).sort((a, b) => a.runAt - b.runAt)[0];
  if (!oldest || now - oldest.runAt <= backlogAgeMs) return [];
  return [{ kind: 'backlog_old', connector: '', reason: `a ${oldest.kind} job has been due for ${minutes(now - oldest.runAt)} (backlog_age: ${minutes(backlogAgeMs)})` }];
}
