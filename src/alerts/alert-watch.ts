/**
 * The alert watch: every `check_every` it reads what is wrong, lets the gate
 * decide what to tell, and sends it — never in the way of the paths it
 * watches (it only reads, on its own timer, and a failed check is logged and
 * tried again at the next one).
 *
 *   every replica        its store answers? (health's ping) ──▶ its own gate ──▶ DirectSender (from memory)
 *   one replica (lease)  dead jobs since the mark, recoveries, health's conditions, the oldest due job
 *                        ──▶ the gate ──▶ one write: the gate's state and mark + an `alerts.send` job per alert and destination
 *
 * With PostgreSQL the store-backed watch runs where this replica holds the
 * lease `alerts` (as a connector's poller does), so replicas do not alert
 * twice; with SQLite it simply runs. Its state (the gate, the dead-job mark)
 * is kept in the store under `_alerts/watch`, written only together with the
 * jobs that send what it decided: a crash re-decides from the last write.
 */
import type { Logger } from 'pino';
import { runUnderLease } from '../bridge/poller-lease.ts';
import { sleep } from '../base/sleep.ts';
import type { AlertSettings } from '../config/alert-settings.ts';
import type { HealthReport } from '../http/gateway-health.ts';
import type { JobQueue } from '../jobs/queue.ts';
import { deliveredAfter, latestDeadMark, postedAfter, type DeadMark } from '../store/health-queries.ts';
import type { Store } from '../store/store.ts';
import { alertBody, type Origin } from './alert-body.ts';
import { AlertGate, keyOf, type GateState, type KeyState } from './alert-gate.ts';
import { ALERT_JOB, ALERT_RETRY_FOR_MS, type AlertJobPayload } from './alert-job.ts';
import type { DeadLetter } from './alert-model.ts';
import { backlogCondition, healthConditions, storeCondition } from './conditions.ts';
import { deadLettersSince } from './dead-letters.ts';
import type { DirectSender } from './direct-sender.ts';
import type { DestinationName } from './destinations.ts';

export const WATCH_OWNER = '_alerts';
export const WATCH_KEY = 'watch';
/** How far back a dead delivery's recovery is looked for (nothing is retried for longer than a few days). */
const RECOVERY_WINDOW_MS = 7 * 86_400_000;

interface WatchState {
  gate: GateState;
  mark: DeadMark;
}

export interface AlertWatchOptions {
  store: Store;
  queue: JobQueue;
  health: { report(): Promise<HealthReport> };
  settings: AlertSettings;
  destinations: readonly DestinationName[];
  direct: DirectSender;
  origin: () => Origin;
  logger: Logger;
  /** With PostgreSQL: the lease the store-backed watch runs under. */
  lease?: { holder: string; ttlMs: number };
  now?: () => number;
}

export class AlertWatch {
  readonly #o: AlertWatchOptions;
  readonly #now: () => number;
  readonly #local: AlertGate;
  #failing = false;

  constructor(options: AlertWatchOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
    this.#local = new AlertGate({ everyMs: options.settings.every, afterMs: options.settings.after });
  }

  /** Runs both watches until `signal` aborts; never throws. */
  async run(signal: AbortSignal): Promise<void> {
    const { lease, store, logger } = this.#o;
    const shared = lease
      ? runUnderLease({ store, name: 'alerts', holder: lease.holder, ttlMs: lease.ttlMs, logger }, signal, (_hold, held) => this.#watchStore(held))
      : this.#watchStore(signal);
    await Promise.all([this.#watchOwnStore(signal), shared]);
  }

  /** Whether this replica's store answers: told from memory, by this replica. */
  async #watchOwnStore(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        const report = await this.#o.health.report();
        const now = this.#now();
        for (const alert of this.#local.step(now, { conditions: storeCondition(report), deadLetters: [], recovered: new Set() })) {
          this.#o.direct.send(alertBody(alert, this.#o.origin(), now));
        }
      } catch (err) {
        this.#o.logger.warn({ err: { message: (err as Error).message } }, 'the alert watch could not read the gateway’s health');
      }
      await sleep(this.#o.settings.check_every, signal);
    }
  }

  async #watchStore(signal: AbortSignal): Promise<void> {
    let state: WatchState | undefined;
    while (!signal.aborted) {
      try {
        state ??= await this.#load();
        state = await this.check(state);
        if (this.#failing) this.#o.logger.info('the alert watch reads the store again');
        this.#failing = false;
      } catch (err) {
        // The store away is told by #watchOwnStore; anything else is logged once per run of failures.
        if (!this.#failing) this.#o.logger.warn({ err: { message: (err as Error).message } }, 'an alert check failed; trying again');
        this.#failing = true;
        state = undefined;
      }
      await sleep(this.#o.settings.check_every, signal);
    }
  }

  async #load(): Promise<WatchState> {
    const kept = (await this.#o.store.read.state.get(WATCH_OWNER, WATCH_KEY)) as WatchState | undefined;
    if (kept && typeof kept === 'object' && kept.mark && kept.gate) return kept;
    // A store never watched: what was dead-lettered before is not alerted.
    return { gate: {}, mark: await latestDeadMark(this.#o.store.read.sql) };
  }

  /** One check of the store-backed conditions; resolves with the state written. */
  async check(state: WatchState): Promise<WatchState> {
    const { store, settings } = this.#o;
    const report = await this.#o.health.report();
    if (storeCondition(report).length > 0) return state;
    const now = this.#now();
    const origin = this.#o.origin();
    const gate = new AlertGate({ everyMs: settings.every, afterMs: settings.after }, state.gate);
    const { letters, mark } = await deadLettersSince(store.read, state.mark, `${origin.publicUrl}/admin`);
    const recovered = await this.#recovered(gate.openDeadLetterKeys(), letters);
    const conditions = [...healthConditions(report), ...(await backlogCondition(store.read, now, settings.backlog_age))];
    const alerts = gate.step(now, { conditions, deadLetters: letters, recovered });
    const next = { gate: gate.state, mark };
    if (alerts.length === 0 && JSON.stringify(next) === JSON.stringify(state)) return state;
    await store.write(async (tx) => {
      await tx.state.set(WATCH_OWNER, WATCH_KEY, next, now);
      for (const alert of alerts) {
        const body = alertBody(alert, origin, now);
        for (const destination of this.#o.destinations) {
          const payload: AlertJobPayload = { destination, alert: body };
          await this.#o.queue.enqueue(tx, { kind: ALERT_JOB, payload, retryForMs: ALERT_RETRY_FOR_MS });
        }
      }
    });
    return next;
  }

  /** The open dead-letter keys whose connector got something through after their latest dead letter (none new this check). */
  async #recovered(open: readonly KeyState[], fresh: readonly DeadLetter[]): Promise<Set<string>> {
    const out = new Set<string>();
    const newer = new Set(fresh.map((l) => keyOf(l.kind, l.connector)));
    for (const key of open) {
      const id = keyOf(key.kind, key.connector);
      if (!key.latest || newer.has(id)) continue;
      const through =
        key.kind === 'delivery_dead'
          ? await deliveredAfter(this.#o.store.read.sql, key.connector, key.latest.at, key.latest.at - RECOVERY_WINDOW_MS)
          : await postedAfter(this.#o.store.read.sql, key.connector, key.latest.id, key.latest.at);
      if (through) out.add(id);
    }
    return out;
  }
}
