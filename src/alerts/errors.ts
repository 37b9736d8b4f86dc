/** The alerts room's errors. */
import { ThreadgateError } from '../base/errors.ts';

/** An alert that could not be sent (the webhook answered an error, the SMTP server refused): retried like a delivery. */
export class AlertSendError extends ThreadgateError {
  readonly code = 'TG_ALERT_SEND_FAILED';
  readonly permanent: boolean;
  readonly retryAfterMs: number | undefined;

  constructor(message: string, options: { permanent?: boolean; retryAfterMs?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.permanent = options.permanent === true;
    this.retryAfterMs = options.retryAfterMs;
  }
}
