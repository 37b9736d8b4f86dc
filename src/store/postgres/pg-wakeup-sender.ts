/**
 * The sending side of the wake-ups (pg-wakeups.ts): after a write that
 * queued a job committed, a notification on `threadgate_jobs` naming its kind
 * and lane, throttled per payload — the first at once, then at most one per
 * `windowMs`, and always one after the last job of a burst, so a replica woken
 * by the first looks again for what was queued behind it.
 *
 * Each is its own one-statement transaction on a pooled connection, not a
 * statement of the queuing transaction: PostgreSQL serialises the commits of
 * transactions that notify (a lock held through the commit's flush), which
 * cost a group commit of queued jobs most of its rate
 * (docs/decisions/postgres-wakeups.md). Sent after the commit, a notification
 * still names only committed work.
 */
import type pg from 'pg';

/** Longest a burst's last job waits for its notification. */
export const DEFAULT_WAKEUP_WINDOW_MS = 20;
/** Well under NOTIFY's 8000 bytes. */
const MAX_PAYLOAD = 1900;

interface Throttle {
  timer: NodeJS.Timeout;
  /** Something was queued during the window: send again when it ends. */
  again: boolean;
}

export class WakeupSender {
  readonly #pool: pg.Pool;
  readonly #channel: string;
  readonly #windowMs: number;
  readonly #onError: (err: Error) => void;
  readonly #throttles = new Map<string, Throttle>();
  readonly #sending = new Set<Promise<void>>();

  constructor(pool: pg.Pool, channel: string, options: { windowMs?: number; onError?: (err: Error) => void } = {}) {
    this.#pool = pool;
    this.#channel = channel;
    this.#windowMs = options.windowMs ?? DEFAULT_WAKEUP_WINDOW_MS;
    this.#onError = options.onError ?? (() => {});
  }

  /** Announces `payload` (call after the commit): now, or at the end of its window if one was sent in it. */
  send(payload: string): void {
    const throttle = this.#throttles.get(payload);
    if (throttle) {
      throttle.again = true;
      return;
    }
    this.#notify(payload);
    this.#throttles.set(payload, { timer: setTimeout(() => this.#windowEnded(payload), this.#windowMs), again: false });
  }

  /** Sends what waits for its window's end now, and resolves once every notification went out. */
  async flush(): Promise<void> {
    for (const [payload, throttle] of this.#throttles) {
      clearTimeout(throttle.timer);
      if (throttle.again) this.#notify(payload);
    }
    this.#throttles.clear();
    await Promise.all(this.#sending);
  }

  #windowEnded(payload: string): void {
    const throttle = this.#throttles.get(payload);
    this.#throttles.delete(payload);
    if (throttle?.again) this.send(payload);
  }

  #notify(payload: string): void {
    const sent = this.#pool
      .query('select pg_notify($1, $2)', [this.#channel, payload.slice(0, MAX_PAYLOAD)])
      .then(
        () => {},
        (err: Error) => this.#onError(err),
      )
      .finally(() => this.#sending.delete(sent));
    this.#sending.add(sent);
  }
}
