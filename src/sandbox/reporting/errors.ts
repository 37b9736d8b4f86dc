/**
 * Errors of the workflow reporting endpoints (spec 02, Errors): 406 for a
 * filter the platform has not implemented, 500 for an unexpected error in the
 * query. Validation problems (400) keep SandboxValidationError; the reporting
 * routes answer them in the documented shape, keyed by field name.
 */
import type { FastifyInstance } from 'fastify';
import { SandboxError, SandboxValidationError } from '../errors.ts';

export class ReportingNotImplementedError extends SandboxError {
  readonly code = 'TG_SANDBOX_REPORTING_NOT_IMPLEMENTED';
  override readonly statusCode = 406;
}

export class ReportingQueryError extends SandboxError {
  readonly code = 'TG_SANDBOX_REPORTING_QUERY_FAILED';
  override readonly statusCode = 500;
}

/**
 * Spec 02: a 400 of a reporting endpoint is "JSON keyed by the field name with
 * a list of messages", e.g. {"format": ["Must be xlsx or csv."]}. Other errors
 * go on to the app's handler ({"detail": ...}); a 500 keeps its message here,
 * since it is the documented answer and carries no internals.
 */
export function installReportingErrorShape(scope: FastifyInstance): void {
  scope.setErrorHandler((err, request, reply) => {
    if (err instanceof SandboxValidationError) return reply.status(400).send(err.fieldErrors);
    if (err instanceof ReportingQueryError) {
      request.log.warn({ code: err.code }, err.message);
      return reply.status(500).send({ detail: err.message });
    }
    throw err;
  });
}
