/**
 * One judgement of the gateway's health, read by `/readyz`, the gauges of
 * `/metrics` and the admin overview, so the three cannot disagree.
 *
 * Ready (traffic may be sent here): the store answers, every migration is
 * applied, and every connector's channel configuration is registered or known
 * from the store (a row from an earlier run counts). Healthy (what
 * `/readyz?strict=1` asks): ready, the platform answers and accepts the
 * token, and every connector is up: its own report is ok, it is registered
 * and its platform posts are not paused.
 */
import type { AuthPause } from '../bridge/auth-pause.ts';
import type { ConnectorHealth } from '../connector/api.ts';
import type { PlatformHealth } from '../platform/platform-health.ts';
import type { Store } from '../store/database.ts';

export interface ConnectorReport {
  /** The connector's own report (a mailbox connected, a poller running). */
  ok: boolean;
  details: Record<string, unknown>;
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
      connectors[name] = { ok: health.ok, details: health.details ?? {}, registered, paused, up: health.ok && registered && paused === null };
      if (!registered) unregistered.push(name);
      if (!health.ok) problems.push(`connector ${name} reports itself unhealthy`);
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
