/**
 * The conditions the watch reads from the gateway's health report: the
 * store, the platform's token, each connector paused or down (with why).
 */
import { describe, expect, it } from 'vitest';
import { healthConditions, storeCondition } from '../../src/alerts/conditions.ts';
import type { ConnectorReport, HealthReport } from '../../src/http/gateway-health.ts';

const up: ConnectorReport = { ok: true, details: {}, deliveries: null, registered: true, paused: null, up: true };
const report = (over: Partial<HealthReport> = {}): HealthReport => ({
  ready: true,
  healthy: true,
  problems: [],
  checks: { store: 'open', migrations: 'current (16)', registrations: 'complete' },
  platform: { up: true, auth: 'ok', checked_at: null, last: '200' },
  connectors: { mail: up },
  ...over,
});

describe('alert conditions', () => {
  it('are none for a healthy gateway', () => {
    expect([...storeCondition(report()), ...healthConditions(report())]).toEqual([]);
  });

  it('name the store unavailable, the token refused, a connector paused and one down with its reason', () => {
    const sick = report({
      checks: { store: 'unavailable: connect ECONNREFUSED 127.0.0.1:5432', migrations: 'unknown', registrations: 'complete' },
      platform: { up: true, auth: 'refused', checked_at: null, last: '401' },
      connectors: {
        mail: { ...up, ok: false, up: false, details: { last_error: 'IMAP login refused' } },
        desk: { ...up, up: false, paused: { since: '2026-11-29T10:00:00.000Z', status: 401, reason: 'POST /messages answered 401', checks: 3, next_check_at: '2026-11-29T10:05:00.000Z' } },
        hook: { ...up, ok: false, up: false, deliveries: { since: '2026-11-29T09:00:00.000Z', attempts: 4, last_error: 'TG_X: refused', last_error_at: '2026-11-29T09:30:00.000Z', down: true } },
      },
    });
    expect(storeCondition(sick)).toEqual([{ kind: 'store_unavailable', connector: '', reason: 'the store is unavailable: connect ECONNREFUSED 127.0.0.1:5432' }]);
    expect(healthConditions(sick)).toEqual([
      { kind: 'platform_auth', connector: '', reason: "the platform refuses the gateway's token (last: 401)" },
      { kind: 'connector_down', connector: 'mail', reason: 'it reports itself unhealthy (last error: IMAP login refused)' },
      { kind: 'connector_paused', connector: 'desk', reason: 'platform posts paused since 2026-11-29T10:00:00.000Z: the platform refused the token (401): POST /messages answered 401' },
      { kind: 'connector_down', connector: 'hook', reason: '4 deliveries in a row failed since 2026-11-29T09:00:00.000Z (last: TG_X: refused)' },
    ]);
  });
});
