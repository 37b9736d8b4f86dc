/**
 * One judgement of the gateway's health, read by `/readyz`, the gauges of
 * `/metrics` and the admin overview, so the three cannot disagree.
 *
 * Ready (traffic may be sent here): the store answers, every migration is
 * applied, and every connector's channel configuration is registered or known
 * from the store (a row from an earlier run counts). Healthy (what
 * `/readyz?strict=1` asks): ready, the platform answers and accepts the
 * token, and every connector is up: its own report is ok, its deliveries get
 * through (bridge/delivery-health.ts), it is registered and its platform posts
 * are not paused.
 */
import type { AuthPause } from '../bridge/auth-pause.ts';
import type { DeliveryHealth } from '../bridge/delivery-health.ts';
import type { ConnectorHealth } from '../connector/api.ts';
import type { PlatformHealth } from '../platform/platform-health.ts';
import type { Store } from '../store/database.ts';

/** A connector's run of failed delivery attempts (webhooks handed to its `deliver`). */
export interface DeliveryFailureReport {
  /** The run's first failed attempt. */
  since: string;
  attempts: number;
  last_error: string;
  last_error_at: string;
  /** The run is long enough for the connector to count as down (health.delivery_failures, health.delivery_failing_for). */
  down: boolean;
}

export interface ConnectorReport {
  /** Its own report is ok (a mailbox connected, a poller running) and its deliveries are not failing. */
  ok: boolean;
  details: Record<string, unknown>;
  /** Its current run of failed deliveries; null while the last one got through (or none ran). */
  deliveries: DeliveryFailureReport | null;
  /** It has a channel configuration (registered now or known from the store). */
  registered: boolean;
  /** Its platform posts wait for the platform to accept the token again; null while they flow. */
  paused: { since: string; status: number; reason: string; checks: number; next_check_at: string } | null;
  /** ok, registered and not paused. */
  up: boolean;
}

export interface PlatformReport {
  /** null until the first platform call ended. */
  up: boolean | null;
  auth: 'ok' | 'refused' | 'unknown';
  checked_at: string | null;
  /** The last call's status or error code. */
  last: string | null;
}

export interface HealthReport {
  /** What `/readyz` answers 200 for. */
  ready: boolean;
  /** What `/readyz?strict=1` answers 200 for. */
  healthy: boolean;
  /** Every reason the gateway is not ready or not healthy, one line each. */
  problems: string[];
  checks: { store: string; migrations: string; registrations: string };
  platform: PlatformReport | null;
  connectors: Record<string, ConnectorReport>;
}

export interface HealthSources {
  store: Store;
  connectors?: () => Promise<Record<string, ConnectorHealth>>;
  /** Whether a connector has a channel configuration; absent: every connector counts as registered. */
  registered?: (connector: string) => boolean | Promise<boolean>;
  platform?: PlatformHealth;
  pause?: AuthPause;
  deliveries?: Pick<DeliveryHealth, 'view'>;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export class GatewayHealth {
  readonly #s: HealthSources;

  constructor(sources: HealthSources) {
    this.#s = sources;
  }

  async report(): Promise<HealthReport> {
    const problems: string[] = [];
    const checks = { store: 'open', migrations: 'unknown', registrations: 'complete' };
    let storeReady = false;
    try {
      await this.#s.store.ping();
      const m = await this.#s.store.migrationStatus();
      checks.migrations = m.current ? `current (${m.applied})` : `pending (${m.applied} of ${m.known})`;
      storeReady = m.current;
      if (!m.current) problems.push(`store migrations pending: ${m.applied} of ${m.known} applied`);
    } catch (err) {
      checks.store = `unavailable: ${(err as Error).message}`;
      problems.push(`store unavailable: ${(err as Error).message}`);
    }

    const own = this.#s.connectors ? await this.#s.connectors() : {};
    const connectors: Record<string, ConnectorReport> = {};
    const unregistered: string[] = [];
    for (const [name, health] of Object.entries(own)) {
      const registered = storeReady ? ((await this.#s.registered?.(name)) ?? true) : false;
      const pause = this.#s.pause?.view(name);
      const paused = pause
        ? { since: iso(pause.since) as string, status: pause.status, reason: pause.reason, checks: pause.checks, next_check_at: iso(pause.nextCheckAt) as string }
        : null;
      const failing = this.#s.deliveries?.view(name) ?? null;
      const deliveries = failing
        ? { since: iso(failing.since) as string, attempts: failing.attempts, last_error: failing.lastError, last_error_at: iso(failing.lastErrorAt) as string, down: failing.down }
        : null;
      const ok = health.ok && deliveries?.down !== true;
      connectors[name] = { ok, details: health.details ?? {}, deliveries, registered, paused, up: ok && registered && paused === null };
      if (!registered) unregistered.push(name);
      if (!health.ok) problems.push(`connector ${name} reports itself unhealthy`);
      if (deliveries?.down) {
        const tries = deliveries.attempts === 1 ? 'a delivery' : `${deliveries.attempts} deliveries in a row`;
        problems.push(`connector ${name}: ${tries} failed since ${deliveries.since} (last: ${deliveries.last_error})`);
      }
      if (paused) problems.push(`connector ${name}: platform posts paused since ${paused.since} (the platform refused the token: ${paused.status})`);
    }
    if (unregistered.length > 0) {
      checks.registrations = `waiting for ${unregistered.join(', ')}`;
      if (storeReady) problems.push(`channel registration pending for ${unregistered.join(', ')}`);
    }

    const platform = this.#platform();
    if (platform?.up === false) problems.push(`platform unreachable (last: ${platform.last})`);
    if (platform?.auth === 'refused') problems.push(`the platform refuses the gateway's token (last: ${platform.last})`);

    const ready = storeReady && unregistered.length === 0;
    const healthy = ready && platform?.up !== false && platform?.auth !== 'refused' && Object.values(connectors).every((c) => c.up);
    return { ready, healthy, problems, checks, platform, connectors };
  }

  #platform(): PlatformReport | null {
    if (!this.#s.platform) return null;
    const v = this.#s.platform.view();
    return { up: v.up, auth: v.auth, checked_at: iso(v.checkedAt), last: v.last };
  }
}
