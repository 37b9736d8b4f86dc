/**
 * Alerts sent without the store: what a replica tells when the store does
 * not answer, so no job can be queued. Each alert is sent to every
 * destination from memory, retried with a doubling wait (1 s up to 5 min)
 * for an hour, then given up (logged at error). At most 100 wait at once: a
 * store that flaps for hours does not fill the memory. Alerts still waiting
 * when the gateway stops are logged as not sent.
 */
import type { Logger } from 'pino';
import { sleep } from '../base/sleep.ts';
import type { AlertBody } from './alert-model.ts';
import type { AlertOutcome } from './alert-job.ts';
import type { Destination, DestinationName } from './destinations.ts';
import { AlertSendError } from './errors.ts';

const FIRST_WAIT_MS = 1_000;
const MAX_WAIT_MS = 5 * 60_000;
const GIVE_UP_MS = 3_600_000;
const MAX_WAITING = 100;

export class DirectSender {
  readonly #destinations: readonly Destination[];
  readonly #logger: Logger;
  readonly #told: ((alert: AlertBody, destination: DestinationName, outcome: AlertOutcome) => void) | undefined;
  readonly #stop = new AbortController();
  readonly #running = new Set<Promise<void>>();

  constructor(destinations: readonly Destination[], logger: Logger, told?: (alert: AlertBody, destination: DestinationName, outcome: AlertOutcome) => void) {
    this.#destinations = destinations;
    this.#logger = logger;
    this.#told = told;
  }

  send(alert: AlertBody): void {
    for (const destination of this.#destinations) {
      if (this.#running.size >= MAX_WAITING) {
        this.#logger.error({ alert_id: alert.id, kind: alert.kind, destination: destination.name }, `alert not sent: ${MAX_WAITING} alerts already wait to be sent`);
        continue;
      }
      const run = this.#deliver(alert, destination).finally(() => this.#running.delete(run));
      this.#running.add(run);
    }
  }

  async #deliver(alert: AlertBody, destination: Destination): Promise<void> {
    const started = Date.now();
    for (let wait = FIRST_WAIT_MS; !this.#stop.signal.aborted; wait = Math.min(wait * 2, MAX_WAIT_MS)) {
      try {
        const answer = await destination.send(alert, this.#stop.signal);
        this.#told?.(alert, destination.name, 'sent');
        this.#logger.info({ alert_id: alert.id, kind: alert.kind, state: alert.state, destination: destination.name, to: destination.target, answer }, 'alert sent');
        return;
      } catch (err) {
        if (this.#stop.signal.aborted) break;
        this.#told?.(alert, destination.name, 'failed');
        const permanent = err instanceof AlertSendError && err.permanent;
        if (permanent || Date.now() - started > GIVE_UP_MS) {
          this.#logger.error({ alert_id: alert.id, kind: alert.kind, destination: destination.name, to: destination.target, err: { message: (err as Error).message } }, 'alert given up');
          return;
        }
        this.#logger.warn({ alert_id: alert.id, kind: alert.kind, destination: destination.name, err: { message: (err as Error).message } }, 'alert not sent; retrying');
        const asked = err instanceof AlertSendError ? (err.retryAfterMs ?? 0) : 0;
        await sleep(Math.max(wait, Math.min(asked, MAX_WAIT_MS)), this.#stop.signal).catch(() => undefined);
      }
    }
    this.#logger.warn({ alert_id: alert.id, kind: alert.kind, destination: destination.name }, 'alert not sent: the gateway stopped');
  }

  /** Stops retrying; what still waits is logged as not sent. */
  async close(): Promise<void> {
    this.#stop.abort();
    await Promise.allSettled([...this.#running]);
  }
}
