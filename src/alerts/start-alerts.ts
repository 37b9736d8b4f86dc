/**
 * The alerts of a running gateway, from its `alerts:` settings: the
 * `alerts.send` job kind registered on the job runner (before it starts),
 * the sender from memory for when the store is away, and the watch, started
 * once the gateway is ready. `close` stops the watch, then the senders.
 */
import type { Logger } from 'pino';
import type { AlertSettings } from '../config/alert-settings.ts';
import type { HealthReport } from '../http/gateway-health.ts';
import type { JobQueue } from '../jobs/queue.ts';
import type { JobRunner } from '../jobs/runner.ts';
import type { Store } from '../store/store.ts';
import type { Origin } from './alert-body.ts';
import { ALERT_JOB, alertJobHandler, type AlertOutcome } from './alert-job.ts';
import type { AlertBody } from './alert-model.ts';
import { AlertWatch } from './alert-watch.ts';
import { destinationsOf, type DestinationName } from './destinations.ts';
import { DirectSender } from './direct-sender.ts';

export interface AlertsDeps {
  settings: AlertSettings;
  store: Store;
  queue: JobQueue;
  runner: JobRunner;
  health: { report(): Promise<HealthReport> };
  origin: () => Origin;
  logger: Logger;
  lease?: { holder: string; ttlMs: number } | undefined;
  /** Told of every try to send an alert (metrics). */
  told?: (alert: AlertBody, destination: DestinationName, outcome: AlertOutcome) => void;
}

export interface RunningAlerts {
  /** Starts the watch (once the gateway is ready). */
  start(): void;
  close(): Promise<void>;
}

export function setUpAlerts(deps: AlertsDeps): RunningAlerts {
  const logger = deps.logger.child({ room: 'alerts' });
  const destinations = destinationsOf(deps.settings);
  deps.runner.register(ALERT_JOB, { handler: alertJobHandler(destinations, logger, deps.told), concurrency: 2 });
  const direct = new DirectSender(destinations, logger, deps.told);
  const watch = new AlertWatch({
    store: deps.store,
    queue: deps.queue,
    health: deps.health,
    settings: deps.settings,
    destinations: destinations.map((d) => d.name),
    direct,
    origin: deps.origin,
    logger,
    ...(deps.lease ? { lease: deps.lease } : {}),
  });
  const stop = new AbortController();
  let running: Promise<void> | undefined;
  return {
    start() {
      running ??= watch.run(stop.signal);
      logger.info({ destinations: destinations.map((d) => `${d.name} (${d.target})`) }, 'alerts on');
    },
    async close() {
      stop.abort();
      await running;
      await direct.close();
      for (const d of destinations) d.close();
    },
  };
}
