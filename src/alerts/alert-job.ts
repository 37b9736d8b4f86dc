/**
 * Sending an alert is a job like any other external side effect
 * (`alerts.send`, one per alert and destination), queued in the write that
 * keeps the alert watch's state: retried with backoff and `Retry-After`, for
 * a day, then dead-lettered — and a dead alert job raises no alert itself
 * (its kind is none of those the watch reads).
 */
import type { Logger } from 'pino';
import type { JobHandler } from '../jobs/job-run.ts';
import type { AlertBody } from './alert-model.ts';
import type { Destination, DestinationName } from './destinations.ts';

export const ALERT_JOB = 'alerts.send';
/** How long an alert is worth sending. */
export const ALERT_RETRY_FOR_MS = 24 * 3_600_000;

export interface AlertJobPayload {
  destination: DestinationName;
  alert: AlertBody;
}

export type AlertOutcome = 'sent' | 'failed';

/** The handler of `alerts.send`: sends to the named destination; `told` counts each try (metrics). */
export function alertJobHandler(destinations: readonly Destination[], logger: Logger, told?: (alert: AlertBody, destination: DestinationName, outcome: AlertOutcome) => void): JobHandler<AlertJobPayload> {
  return async (payload, ctx) => {
    const destination = destinations.find((d) => d.name === payload.destination);
    if (!destination) {
      // The settings lost that destination since the job was queued: nothing to send to.
      logger.warn({ alert_id: payload.alert.id, destination: payload.destination }, 'alert not sent: its destination is no longer configured');
      return;
    }
    try {
      const answer = await destination.send(payload.alert, ctx.signal);
      told?.(payload.alert, destination.name, 'sent');
      logger.info({ alert_id: payload.alert.id, kind: payload.alert.kind, state: payload.alert.state, connector: payload.alert.connector, destination: destination.name, to: destination.target, answer }, 'alert sent');
    } catch (err) {
      told?.(payload.alert, destination.name, 'failed');
      logger.warn({ alert_id: payload.alert.id, kind: payload.alert.kind, destination: destination.name, to: destination.target, err: { message: (err as Error).message }, attempt: ctx.job.attempts }, 'alert not sent; retrying');
      throw err;
    }
  };
}
