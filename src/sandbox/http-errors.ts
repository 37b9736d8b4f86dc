/**
 * The sandbox's HTTP error boundary, and the one place zod problems become the
 * platform's validation body:
 *
 *   400 {"detail": "Invalid payload.", "errors": {"messages.0.body": ["..."]}}
 *
 * Every other error body is `{"detail": "..."}`. Spec 03 does not show the
 * error body; this shape is our choice (docs/decisions/platform-error-body.md).
 */
import type { FastifyError, FastifyInstance } from 'fastify';
import type { z } from 'zod';
import { SandboxError, SandboxValidationError, type FieldErrors } from './errors.ts';

/** The path used for problems of the payload as a whole. */
export const NON_FIELD_ERRORS = 'non_field_errors';

export interface ErrorBody {
  detail: string;
  errors?: FieldErrors;
}

/** Parses `input` with `schema` or throws a SandboxValidationError naming every field. */
export function parsePayload<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw new SandboxValidationError(fieldErrorsOf(result.error, input));
}

function fieldErrorsOf(error: z.ZodError, input: unknown): FieldErrors {
  const errors: FieldErrors = {};
  const add = (path: readonly PropertyKey[], message: string) => {
    const key = path.length === 0 ? NON_FIELD_ERRORS : path.map(String).join('.');
    (errors[key] ??= []).push(message);
  };
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) add([...issue.path, key], 'Unknown field.');
    } else if (issue.code !== 'custom' && issue.path.length > 0 && valueAt(input, issue.path) === undefined) {
      // JSON has no undefined: a problem with an absent value is an absent required field.
      add(issue.path, 'This field is required.');
    } else {
      add(issue.path, issue.message);
    }
  }
  return errors;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let current: unknown = input;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

/** Fastify's own 4xx errors, reworded for a client. */
const FASTIFY_DETAILS: Record<string, string> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'Malformed JSON in request body.',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'Empty request body sent as application/json.',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'Unsupported media type; send application/json.',
  FST_ERR_CTP_BODY_TOO_LARGE: 'Request body is too large.',
};

function toErrorBody(err: unknown): { status: number; body: ErrorBody } {
  if (err instanceof SandboxError) {
    const body: ErrorBody = { detail: err.message };
    if (err.fieldErrors) body.errors = err.fieldErrors;
    return { status: err.statusCode, body };
  }
  const fe = err as Partial<FastifyError>;
  const status = typeof fe.statusCode === 'number' && fe.statusCode >= 400 ? fe.statusCode : 500;
  if (status >= 500) return { status, body: { detail: 'Internal server error.' } };
  const detail = (fe.code && FASTIFY_DETAILS[fe.code]) ?? fe.message ?? 'Bad request.';
  return { status, body: { detail } };
}

export function installErrorHandlers(app: FastifyInstance): void {
  app.setErrorHandler((err, request, reply) => {
    const { status, body } = toErrorBody(err);
    if (status >= 500) request.log.error({ err }, 'sandbox request failed');
    else request.log.info({ code: err instanceof SandboxError ? err.code : undefined, status }, body.detail);
    void reply.status(status).send(body);
  });
  app.setNotFoundHandler((_request, reply) => {
    void reply.status(404).send({ detail: 'Not found.' } satisfies ErrorBody);
  });
}
