/**
 * Whether each connector's deliveries (webhooks handed to its `deliver`: a
 * mail sent, a ticket note, a POST out) get through. A connector whose
 * deliveries keep failing is down even when its own report says ok: a
 * webhook connector with a dead `outbound_url` is connected to nothing.
 *
 * Down after `failures` attempts in a row failed, or when attempts have
 * failed and none succeeded for `failingForMs`; the next success makes it
 * up again. An attempt ended by the gateway's stop counts as neither. The
 * state is kept in memory, per replica: after a restart the next attempts
 * find the condition again.
 */

export interface DeliveryHealthRules {
  /** Attempts in a row that failed before the connector counts as down; 0: never by count. */
  failures: number;
  /** Failing with no success for this long counts as down too; 0: never by time. */
  failingForMs: number;
}

export const DEFAULT_DELIVERY_HEALTH: DeliveryHealthRules = Object.freeze({ failures: 3, failingForMs: 5 * 60_000 });

/** A connector's run of failed delivery attempts, as health reports it. */
export interface DeliveryFailureView {
  /** Unix ms of the run's first failed attempt. */
  since: number;
  /** Attempts that failed in the run. */
  attempts: number;
  /** The last attempt's error (code and message, as the delivery log records it). */
  lastError: string;
  /** Unix ms of the last failed attempt. */
  lastErrorAt: number;
  /** The rules say the connector is down. */
  down: boolean;
}

interface Run {
  since: number;
  attempts: number;
  lastError: string;
  lastErrorAt: number;
}

export class DeliveryHealth {
  readonly #runs = new Map<string, Run>();
  readonly #now: () => number;
  #rules: DeliveryHealthRules;

  constructor(rules: DeliveryHealthRules = DEFAULT_DELIVERY_HEALTH, now: () => number = Date.now) {
    this.#rules = rules;
    this.#now = now;
  }

  set rules(rules: DeliveryHealthRules) {
    this.#rules = rules;
  }

  /** An attempt of `connector` delivered: its run of failures, if any, ends. */
  succeeded(connector: string): void {
    this.#runs.delete(connector);
  }

  /** An attempt of `connector` failed with `error` (no secrets: the delivery log's text). */
  failed(connector: string, error: string): void {
    const at = this.#now();
    const run = this.#runs.get(connector);
    if (run === undefined) this.#runs.set(connector, { since: at, attempts: 1, lastError: error, lastErrorAt: at });
    else Object.assign(run, { attempts: run.attempts + 1, lastError: error, lastErrorAt: at });
  }

  /** The connector's current run of failures; null while its last attempt succeeded (or none ran). */
  view(connector: string): DeliveryFailureView | null {
    const run = this.#runs.get(connector);
    if (run === undefined) return null;
    const { failures, failingForMs } = this.#rules;
    const down = (failures > 0 && run.attempts >= failures) || (failingForMs > 0 && this.#now() - run.since >= failingForMs);
    return { ...run, down };
  }
}
