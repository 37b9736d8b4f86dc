/**
 * Platform posts paused by an authentication failure. A 401 or 403 for a
 * connector's call says the gateway's token is expired, revoked or lacks a
 * permission: no message of that connector can pass, so none is tried or
 * dead-lettered. Its jobs are postponed without using a try (their items stay
 * pending) while a re-check with backoff (and jitter) asks the platform whether the token
 * works again (a cheap authenticated read: the connector's channel
 * configuration, or registering it when it has none). When one passes, the
 * pause ends and the postponed jobs are made due at once. A new token (SIGHUP)
 * re-checks at once.
 *
 * The state is kept in memory only: after a restart the first post finds the
 * condition again.
 */
import type { Logger } from 'pino';
import { PlatformHttpError } from '../platform/errors.ts';
import { PostsPausedError } from './errors.ts';

export const AUTH_RECHECK_FIRST_MS = 1_000;
export const AUTH_RECHECK_MAX_MS = 5 * 60_000;

/** Whether the platform refused the token itself (not one request's content). */
export function isAuthRefusal(err: unknown): err is PlatformHttpError {
  return err instanceof PlatformHttpError && (err.status === 401 || err.status === 403);
}

/** The platform answered without refusing the token (a 404 of a configuration it lost says the token works). */
function tokenAccepted(err: unknown): boolean {
  return err instanceof PlatformHttpError && err.code === 'TG_PLATFORM_REJECTED' && !isAuthRefusal(err);
}

export interface PauseView {
  /** Unix ms when the first refusal came. */
  since: number;
  /** The platform's status (401 or 403). */
  status: number;
  /** The refused call and the platform's answer; no token. */
  reason: string;
  /** Re-checks that failed so far. */
  checks: number;
  /** Unix ms of the next re-check. */
  nextCheckAt: number;
}

interface Paused extends PauseView {
  timer: NodeJS.Timeout | undefined;
  checking: Promise<void> | undefined;
  /** Jobs postponed by this pause, made due when it ends. */
  jobs: Set<number>;
}

export interface AuthPauseDeps {
  /** An authenticated call for `connector` that succeeds once the token works; throws otherwise. */
  probe(connector: string, signal: AbortSignal): Promise<void>;
  /** The pause of `connector` ended: `jobs` were postponed by it. */
  onResume(connector: string, jobs: number[]): void;
  logger: Logger;
  firstMs?: number;
  maxMs?: number;
  now?: () => number;
}

export class AuthPause {
  readonly #d: AuthPauseDeps;
  readonly #now: () => number;
  readonly #paused = new Map<string, Paused>();
  readonly #closing = new AbortController();

  constructor(deps: AuthPauseDeps) {
    this.#d = deps;
    this.#now = deps.now ?? Date.now;
  }

  /** Records a refusal of `connector`'s call; the first one starts the pause and its re-checks. */
  pause(connector: string, err: PlatformHttpError): void {
    const current = this.#paused.get(connector);
    if (current) {
      current.status = err.status;
      current.reason = err.message;
      return;
    }
    const now = this.#now();
    const first = this.#delay(0);
    this.#paused.set(connector, { since: now, status: err.status, reason: err.message, checks: 0, nextCheckAt: now + first, timer: undefined, checking: undefined, jobs: new Set() });
    this.#schedule(connector, first);
    this.#d.logger.error(
      { event: 'connector_paused', connector, status: err.status, detail: err.detail, recheck_in_ms: first },
      `the platform refused the gateway's token (${err.status}): platform posts of connector ${connector} are paused; messages stay pending`,
    );
  }

  /**
   * Before a job of `connector` calls the platform: returns when its posts may
   * go; otherwise (after joining a re-check that is due) throws the
   * PostsPausedError that postpones the job until the next re-check.
   */
  async admit(connector: string, jobId: number): Promise<void> {
    const due = this.#paused.get(connector);
    if (!due) return;
    if (due.checking || this.#now() >= due.nextCheckAt) await this.#check(connector);
    if (this.#paused.has(connector)) throw this.postpone(connector, jobId);
  }

  /** The error that postpones job `jobId` of a paused connector until its next re-check. */
  postpone(connector: string, jobId: number): PostsPausedError {
    const p = this.#paused.get(connector);
    if (!p) return new PostsPausedError(connector, this.#now(), 'resumed meanwhile');
    p.jobs.add(jobId);
    return new PostsPausedError(connector, p.nextCheckAt, `the platform refused the token (${p.status}) since ${new Date(p.since).toISOString()}`);
  }

  /** The pause of `connector`, or undefined while its posts flow. */
  view(connector: string): PauseView | undefined {
    const p = this.#paused.get(connector);
    return p && { since: p.since, status: p.status, reason: p.reason, checks: p.checks, nextCheckAt: p.nextCheckAt };
  }

  pausedConnectors(): string[] {
    return [...this.#paused.keys()];
  }

  /** Re-checks every paused connector now (a new token was applied). */
  recheckNow(): void {
    for (const connector of this.#paused.keys()) void this.#check(connector);
  }

  close(): void {
    this.#closing.abort(new Error('the gateway is stopping'));
    for (const p of this.#paused.values()) clearTimeout(p.timer);
  }

  /** One re-check at a time per connector; callers during one share it. */
  #check(connector: string): Promise<void> {
    const p = this.#paused.get(connector);
    if (!p) return Promise.resolve();
    p.checking ??= this.#probe(connector, p).finally(() => {
      p.checking = undefined;
    });
    return p.checking;
  }

  async #probe(connector: string, p: Paused): Promise<void> {
    clearTimeout(p.timer);
    try {
      await this.#d.probe(connector, this.#closing.signal);
    } catch (err) {
      if (this.#closing.signal.aborted) return;
      if (!tokenAccepted(err)) return this.#failedCheck(connector, p, err);
    }
    this.#paused.delete(connector);
    const jobs = [...p.jobs];
    this.#d.logger.info(
      { event: 'connector_resumed', connector, paused_ms: this.#now() - p.since, postponed_jobs: jobs.length },
      `the platform accepts the gateway's token again: platform posts of connector ${connector} resumed`,
    );
    this.#d.onResume(connector, jobs);
  }

  #failedCheck(connector: string, p: Paused, err: unknown): void {
    p.checks += 1;
    const delay = this.#delay(p.checks);
    p.nextCheckAt = this.#now() + delay;
    if (isAuthRefusal(err)) {
      p.status = err.status;
      p.reason = err.message;
    }
    this.#schedule(connector, delay);
    this.#d.logger.warn({ connector, checks: p.checks, recheck_in_ms: delay, err }, 'platform posts stay paused: the re-check failed');
  }

  #schedule(connector: string, delayMs: number): void {
    const p = this.#paused.get(connector);
    if (!p || this.#closing.signal.aborted) return;
    clearTimeout(p.timer);
    p.timer = setTimeout(() => void this.#check(connector), delayMs);
    p.timer.unref();
  }

  /**
   * Doubling from the first wait, capped, and stretched by up to a quarter at random: replicas (and connectors)
   * paused by the same rotated token do not all ask the platform in the same instant. Never shorter than the
   * doubling, so a re-check is never sooner than documented.
   */
  #delay(failedChecks: number): number {
    const first = this.#d.firstMs ?? AUTH_RECHECK_FIRST_MS;
    const max = this.#d.maxMs ?? AUTH_RECHECK_MAX_MS;
    const base = Math.min(max, first * 2 ** Math.min(failedChecks, 20));
    return Math.min(max, Math.round(base * (1 + Math.random() * 0.25)));
  }
}
