/**
 * Errors of the sandbox room. Each has a stable code and the status the
 * platform would answer with; they become HTTP bodies only in the error
 * handler of `http-errors.ts`. Bodies follow the platform's `{detail}` shape
 * (plus `errors` for field problems), not the gateway's `{code, message}`.
 */
import { ThreadgateError } from '../base/errors.ts';

/** Field path (dotted, e.g. `messages.0.body`) → messages. */
export type FieldErrors = Record<string, string[]>;

export abstract class SandboxError extends ThreadgateError {
  /** Field problems, only for validation errors. */
  readonly fieldErrors: FieldErrors | undefined = undefined;
}

/** 400 with per-field messages; detail is always "Invalid payload.". */
export class SandboxValidationError extends SandboxError {
  readonly code = 'TG_SANDBOX_INVALID';
  override readonly statusCode = 400;
  override readonly fieldErrors: FieldErrors;

  constructor(fieldErrors: FieldErrors) {
    super('Invalid payload.');
    this.fieldErrors = fieldErrors;
  }

  /** One problem on one field. */
  static field(path: string, message: string): SandboxValidationError {
    return new SandboxValidationError({ [path]: [message] });
  }
}

/** 400 for a request that is not a payload at all (malformed JSON, bad cursor). */
export class SandboxBadRequestError extends SandboxError {
  readonly code = 'TG_SANDBOX_BAD_REQUEST';
  override readonly statusCode = 400;
}

export class SandboxUnauthenticatedError extends SandboxError {
  readonly code = 'TG_SANDBOX_UNAUTHENTICATED';
  override readonly statusCode = 401;
}

export class SandboxForbiddenError extends SandboxError {
  readonly code = 'TG_SANDBOX_FORBIDDEN';
  override readonly statusCode = 403;
}

export class SandboxNotFoundError extends SandboxError {
  readonly code = 'TG_SANDBOX_NOT_FOUND';
  override readonly statusCode = 404;
}

/** 409: the change is refused because of the resource's state (an ended chat). */
export class SandboxConflictError extends SandboxError {
  readonly code = 'TG_SANDBOX_CONFLICT';
  override readonly statusCode = 409;
}
