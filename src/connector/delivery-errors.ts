/**
 * The errors a connector throws (re-exported by api.ts, where a connector imports them from): from `deliver`,
 * permanent ones dead-letter at once, transient ones are retried with backoff, `RetryLaterError` names the wait;
 * the attachment fetcher's own (`ctx.attachments`) are of the same two kinds; `RouteError` answers a connector
 * route's caller with a status and a JSON body.
 */
import { ThreadgateError } from '../base/errors.ts';

/** Sending can never succeed (the address is refused, the ticket is gone): dead-letter now. */
export class PermanentDeliveryError extends ThreadgateError {
  readonly code: string = 'TG_DELIVERY_PERMANENT';
  readonly permanent = true;
}

/** Sending failed in a way that may pass later (a 5xx, a timeout): retried with backoff. */
export class TransientDeliveryError extends ThreadgateError {
  readonly code: string = 'TG_DELIVERY_TRANSIENT';
}

/** An attachment is larger than the fetch allows (by its Content-Length, or as it arrived): the same file stays too large. */
export class AttachmentTooLargeError extends PermanentDeliveryError {
  override readonly code: string = 'TG_ATTACHMENT_TOO_LARGE';
  readonly maxBytes: number;

  constructor(message: string, maxBytes: number, options?: ErrorOptions) {
    super(message, options);
    this.maxBytes = maxBytes;
  }
}

/** An attachment's URL (or a redirect) is on a host the gateway may not fetch from: neither the platform's nor in files.fetch_hosts. */
export class AttachmentHostRefusedError extends PermanentDeliveryError {
  override readonly code: string = 'TG_ATTACHMENT_HOST_REFUSED';
}

/** The host answered that the attachment is not there for us (a 4xx other than 408 and 429, too many redirects). */
export class AttachmentUnavailableError extends PermanentDeliveryError {
  override readonly code: string = 'TG_ATTACHMENT_UNAVAILABLE';
  /** The HTTP status, when one came. */
  readonly status: number | undefined;

  constructor(message: string, status: number | undefined, options?: ErrorOptions) {
    super(message, options);
    this.status = status;
  }
}

/**
 * Why an attachment can never be fetched, for the line that names it under a reply or note: gone or refused at
 * the platform for good (a 404, a 403), or on a host the gateway may not fetch from. Undefined for any other error
 * (too large is each connector's own wording, with its limits; a transient failure is retried).
 */
export function unfetchableReason(err: unknown): string | undefined {
  if (err instanceof AttachmentUnavailableError) return `the platform did not hand it out (${err.code})`;
  if (err instanceof AttachmentHostRefusedError) return `the gateway may not fetch it from where it is (${err.code})`;
  return undefined;
}

/** Downloading failed in a way that may pass (a network error, the timeout, a 5xx, 408 or 429): retried with backoff. */
export class AttachmentFetchError extends TransientDeliveryError {
  override readonly code: string = 'TG_ATTACHMENT_FETCH_FAILED';
  readonly status: number | undefined;
  /** From a Retry-After header (429, 503); the job's next try waits at least this long. */
  readonly retryAfterMs: number | undefined;

  constructor(message: string, status?: number, retryAfterMs?: number, options?: ErrorOptions) {
    super(message, options);
    this.status = status;
    this.retryAfterMs = retryAfterMs;
  }
}

/** An HTTP refusal from a connector route: `{ code, message, errors? }` with `status`. */
export class RouteError extends ThreadgateError {
  readonly code: string;
  override readonly statusCode: number;
  readonly errors: { path: string; message: string }[] | undefined;

  constructor(status: number, code: string, message: string, errors?: { path: string; message: string }[]) {
    super(message);
    this.statusCode = status;
    this.code = code;
    this.errors = errors;
  }

  override toJSON(): { code: string; message: string; errors?: { path: string; message: string }[] } {
    return this.errors ? { code: this.code, message: this.message, errors: this.errors } : { code: this.code, message: this.message };
  }
}

/** The other side asked for a pause: retry no sooner than `retryAfterMs`. */
export class RetryLaterError extends ThreadgateError {
  readonly code: string = 'TG_DELIVERY_RETRY_LATER';
  readonly retryAfterMs: number;

  constructor(message: string, retryAfterMs: number, options?: ErrorOptions) {
    super(message, options);
    this.retryAfterMs = retryAfterMs;
  }
}
