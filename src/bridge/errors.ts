/** Errors of the bridge room. */
import { ThreadgateError } from '../base/errors.ts';

/** A thread key or message the connector handed over cannot be stored (the rules are the connector API's). */
export { SubmitInvalidError } from '../connector/submit-rules.ts';

export class ThreadNotFoundError extends ThreadgateError {
  readonly code = 'TG_THREAD_NOT_FOUND';
  override readonly statusCode = 404;
}

export class UnknownConnectorError extends ThreadgateError {
  readonly code = 'TG_CONNECTOR_UNKNOWN';
  override readonly statusCode = 404;
}

/** The connector has no platform channel configuration yet (the platform was unreachable at start). */
export class NotRegisteredError extends ThreadgateError {
  readonly code = 'TG_CONNECTOR_NOT_REGISTERED';
  override readonly statusCode = 503;
}

/** A thread had more pending items than one job run sends; the job runs again. */
export class ThreadBacklogError extends ThreadgateError {
  readonly code = 'TG_THREAD_BACKLOG';
  /** Not a failure: the job is given back to run again at once, without using a try (the runner's postponement). */
  readonly postponeUntil = Date.now();
}

/** A webhook body that is not JSON or not a known event: 400 naming the fields. */
export class WebhookPayloadError extends ThreadgateError {
  readonly code = 'TG_WEBHOOK_PAYLOAD_INVALID';
  override readonly statusCode = 400;
  readonly errors: { path: string; message: string }[];

  constructor(message: string, errors: { path: string; message: string }[]) {
    super(message);
    this.errors = errors;
  }

  override toJSON(): { code: string; message: string; errors: { path: string; message: string }[] } {
    return { code: this.code, message: this.message, errors: this.errors };
  }
}

export class RecordNotFoundError extends ThreadgateError {
  readonly code = 'TG_RECORD_NOT_FOUND';
  override readonly statusCode = 404;
}

/** A replay or retry that cannot be done for this record (rejected, truncated, not dead). */
export class NotReplayableError extends ThreadgateError {
  readonly code = 'TG_NOT_REPLAYABLE';
  override readonly statusCode = 409;
}

/**
 * The platform refused the gateway's token (401/403) for this connector's
 * calls: its posts wait, untried, until a re-check passes. Postpones the job
 * (`postponeUntil`) instead of failing it.
 */
export class PostsPausedError extends ThreadgateError {
  readonly code = 'TG_CONNECTOR_PAUSED';
  override readonly statusCode = 503;
  readonly connector: string;
  readonly postponeUntil: number;

  constructor(connector: string, postponeUntil: number, reason: string) {
    super(`platform posts of connector ${connector} are paused: ${reason}`);
    this.connector = connector;
    this.postponeUntil = postponeUntil;
  }
}

/** A file link without a valid signature (or for another file): 403, saying nothing of whether the file exists. */
export class FileLinkInvalidError extends ThreadgateError {
  readonly code = 'TG_FILE_LINK_INVALID';
  override readonly statusCode = 403;
}

/** A genuine file link past its expiry. */
export class FileLinkExpiredError extends ThreadgateError {
  readonly code = 'TG_FILE_LINK_EXPIRED';
  override readonly statusCode = 410;
}

/** A genuine, unexpired file link whose file is no longer in the store. */
export class FileNotFoundError extends ThreadgateError {
  readonly code = 'TG_FILE_NOT_FOUND';
  override readonly statusCode = 404;
}

/** The file link key kept in the store is not a key (altered by hand?): no link can be made or checked. */
export class FileLinkKeyError extends ThreadgateError {
  readonly code = 'TG_FILE_LINK_KEY_INVALID';
}
