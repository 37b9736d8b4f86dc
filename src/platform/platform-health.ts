/**
 * Whether the platform answers the gateway, judged by the last outcome of the
 * gateway's own platform calls (registration, posts, re-checks): an answer
 * other than 429 or 5xx says it is up, no answer in time (refused, reset,
 * timeout) or a 429/5xx that it is down; a 401/403 says it is up but refuses
 * the token. When no call was made for `idleMs`, a probe (a cheap
 * authenticated read) is made, so an idle gateway notices an outage too.
 * Changes are logged once each (down at warn, up again at info).
 */
import type { Logger } from 'pino';
import type { PlatformAttemptInfo } from './http-request.ts';

export const PLATFORM_PROBE_IDLE_MS = 30_000;

export interface PlatformHealthView {
  /** null until the first call ended. */
  up: boolean | null;
  /** Whether the platform accepts the gateway's token: unknown until an authenticated answer came. */
  auth: 'ok' | 'refused' | 'unknown';
  /** Unix ms of the last call's end; null before the first. */
  checkedAt: number | null;
  /** The last call's HTTP status, or its error code when no answer came. */
  last: string | null;
}

export interface PlatformHealthDeps {
  /** A cheap authenticated read; its outcome reaches `observe` through the client's hook. */
  probe(signal: AbortSignal): Promise<unknown>;
  logger: Logger;
  idleMs?: number;
  now?: () => number;
}

export class PlatformHealth {
  readonly #d: PlatformHealthDeps;
  readonly #now: () => number;
  readonly #idleMs: number;
  readonly #closing = new AbortController();
  #view: PlatformHealthView = { up: null, auth: 'unknown', checkedAt: null, last: null };
  #timer: NodeJS.Timeout | undefined;

  constructor(deps: PlatformHealthDeps) {
    this.#d = deps;
    this.#now = deps.now ?? Date.now;
    this.#idleMs = deps.idleMs ?? PLATFORM_PROBE_IDLE_MS;
  }

  /** The platform client's `onAttempt` hook. */
  readonly observe = (attempt: PlatformAttemptInfo): void => {
    if (attempt.status === undefined && attempt.error === 'aborted') return; // our own cancellation says nothing
    const status = attempt.status;
    const up = status !== undefined && status !== 429 && status < 500;
    const auth = status === 401 || status === 403 ? 'refused' : up ? 'ok' : this.#view.auth;
    const before = this.#view;
    this.#view = { up, auth, checkedAt: this.#now(), last: status === undefined ? (attempt.error ?? 'no answer') : String(status) };
    if (before.up !== false && !up) this.#d.logger.warn({ event: 'platform_down', last: this.#view.last }, 'the platform does not answer');
    if (before.up === false && up) this.#d.logger.info({ event: 'platform_up', last: this.#view.last }, 'the platform answers again');
  };

  view(): PlatformHealthView {
    return { ...this.#view };
  }

  /** Starts the idle probe. */
  start(): void {
    this.#schedule();
  }

  close(): void {
    this.#closing.abort(new Error('the gateway is stopping'));
    clearTimeout(this.#timer);
  }

  #schedule(): void {
    if (this.#closing.signal.aborted) return;
    const last = this.#view.checkedAt ?? this.#now();
    const wait = Math.max(0, last + this.#idleMs - this.#now());
    this.#timer = setTimeout(() => void this.#tick(), wait);
    this.#timer.unref();
  }

  async #tick(): Promise<void> {
    const last = this.#view.checkedAt;
    if (last === null || this.#now() - last >= this.#idleMs) {
      try {
        await this.#d.probe(this.#closing.signal);
      } catch {
        // its outcome was observed; the view says what it was
      }
      // A probe that could not even be sent (no hook call) still counts as a look.
      if (this.#view.checkedAt === last) this.#view = { ...this.#view, checkedAt: this.#now() };
    }
    this.#schedule();
  }
}
