/**
 * Which alerts to send, from what each check saw: grouping and rate limits.
 * One key per kind and connector. Each check hands the gate the conditions
 * holding now, the dead letters since the last check, and the dead-letter
 * keys that recovered (a later delivery or post of that connector got through).
 *
 *   occurrence   a dead letter; or a condition that held for `after` (connector_down/paused), or at once (others)
 *   firing       sent for a key's occurrences when none was sent in the last `every`; it carries their count and
 *                the latest dead letter. Occurrences within `every` of the last alert wait and add to the next count.
 *   resolved     sent once when a fired condition ends, or a fired dead-letter key recovers; the key starts afresh
 *
 * A condition that ends before its alert could be sent (inside `every`)
 * drops its occurrence: no alert is sent for trouble already over. The
 * state is plain JSON (`state`), kept in the store between checks so that a
 * restart, or another replica taking the watch over, carries on.
 */
import { EVENT_KINDS, type AlertKind, type Condition, type DeadLetter } from './alert-model.ts';

export interface KeyState {
  kind: AlertKind;
  connector: string;
  /** A firing alert went out and no resolved one yet. */
  firing: boolean;
  /** Unix ms of the last firing alert. */
  lastSentAt: number | null;
  /** Occurrences not told yet. */
  pending: number;
  /** An occurrence is open: a dead letter not recovered, or a condition that held long enough. */
  active: boolean;
  /** Unix ms the condition was first seen holding (conditions), or the first pending dead letter (events). */
  since: number | null;
  reason: string;
  latest: DeadLetter | null;
}

export type GateState = Record<string, KeyState>;

/** One alert to send. */
export interface GateAlert {
  kind: AlertKind;
  connector: string;
  state: 'firing' | 'resolved';
  count: number;
  reason: string;
  latest: DeadLetter | null;
  /** When the trouble began (firing) or ended (resolved). */
  since: number;
}

export interface GateCheck {
  conditions: readonly Condition[];
  deadLetters: readonly DeadLetter[];
  /** Keys (`keyOf`) of dead-letter kinds that recovered. */
  recovered: ReadonlySet<string>;
}

export const keyOf = (kind: AlertKind, connector: string) => `${kind}|${connector}`;

/** Conditions alerted only after holding this long (the others at once). */
const WAITS_FOR_AFTER: ReadonlySet<AlertKind> = new Set(['connector_down', 'connector_paused']);

export class AlertGate {
  readonly #everyMs: number;
  readonly #afterMs: number;
  readonly #keys: GateState;

  constructor(options: { everyMs: number; afterMs: number }, state: GateState = {}) {
    this.#everyMs = options.everyMs;
    this.#afterMs = options.afterMs;
    this.#keys = structuredClone(state);
  }

  get state(): GateState {
    return structuredClone(this.#keys);
  }

  /** The keys of dead-letter kinds with an open occurrence (whose recovery the watch looks for). */
  openDeadLetterKeys(): KeyState[] {
    return Object.values(this.#keys).filter((k) => EVENT_KINDS.has(k.kind) && k.active);
  }

  step(now: number, check: GateCheck): GateAlert[] {
    const out: GateAlert[] = [];
    for (const dead of check.deadLetters) {
      const key = this.#key(dead.kind, dead.connector);
      key.pending += 1;
      key.active = true;
      key.since ??= dead.at;
      key.latest = dead;
      key.reason = dead.code ? `${dead.code}: ${dead.reason}` : dead.reason;
    }
    const holding = new Set<string>();
    for (const condition of check.conditions) {
      const id = keyOf(condition.kind, condition.connector);
      holding.add(id);
      const key = this.#key(condition.kind, condition.connector);
      key.since ??= now;
      key.reason = condition.reason;
      const wait = WAITS_FOR_AFTER.has(condition.kind) ? this.#afterMs : 0;
      if (!key.active && now - key.since >= wait) {
        key.active = true;
        key.pending += 1;
      }
    }
    for (const [id, key] of Object.entries(this.#keys)) {
      const ended = EVENT_KINDS.has(key.kind) ? check.recovered.has(id) : !holding.has(id);
      if (ended) {
        if (key.firing) out.push({ kind: key.kind, connector: key.connector, state: 'resolved', count: 0, reason: key.reason, latest: key.latest, since: now });
        // Keep when the last alert went out, so a new occurrence soon after still waits out `every`.
        if (key.lastSentAt !== null && now - key.lastSentAt < this.#everyMs) this.#keys[id] = { ...fresh(key.kind, key.connector), lastSentAt: key.lastSentAt };
        else delete this.#keys[id];
        continue;
      }
      if (key.pending > 0 && key.active && (key.lastSentAt === null || now - key.lastSentAt >= this.#everyMs)) {
        out.push({ kind: key.kind, connector: key.connector, state: 'firing', count: key.pending, reason: key.reason, latest: key.latest, since: key.since ?? now });
        key.firing = true;
        key.lastSentAt = now;
        key.pending = 0;
      }
    }
    return out;
  }

  #key(kind: AlertKind, connector: string): KeyState {
    const id = keyOf(kind, connector);
    return (this.#keys[id] ??= fresh(kind, connector));
  }
}

function fresh(kind: AlertKind, connector: string): KeyState {
  return { kind, connector, firing: false, lastSentAt: null, pending: 0, active: false, since: null, reason: '', latest: null };
}
