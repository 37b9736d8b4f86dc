/**
 * The HTTP boundary: every error becomes a JSON body `{code, message, errors?}`
 * with the right status. 4xx are logged at info, 5xx at error; a stack never
 * reaches a client.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ThreadgateError } from '../base/errors.ts';

export interface FieldError {
  path: string;
  message: string;
}

export interface ErrorBody {
  code: string;
  message: string;
  errors?: FieldError[];
}

/** A request that fails validation: 400 naming each field. */
export class RequestInvalidError extends ThreadgateError {
  readonly code = 'TG_REQUEST_INVALID';
  override readonly statusCode = 400;
  readonly errors: FieldError[];

  constructor(errors: FieldError[]) {
    super(errors.map((e) => (e.path ? `${e.path}: ${e.message}` : e.message)).join('; '));
    this.errors = errors;
  }

  override toJSON(): ErrorBody {
    return { code: this.code, message: this.message, errors: this.errors };
  }
}

/** An admin API call without the right `Authorization: Bearer <server.admin_token>`. */
export class AdminUnauthorizedError extends ThreadgateError {
  readonly code = 'TG_ADMIN_UNAUTHORIZED';
  override readonly statusCode = 401;
}

/**
 * A request path the gateway will not pass on or route (a dot segment, an
 * encoded slash, a broken escape…): 400 naming the field `path`.
 */
export class PathInvalidError extends ThreadgateError {
  readonly code = 'TG_PATH_INVALID';
  override readonly statusCode = 400;
  readonly #problem: string;

  constructor(problem: string) {
    super(`path: ${problem}`);
    this.#problem = problem;
  }

  override toJSON(): ErrorBody {
    return { code: this.code, message: this.message, errors: [{ path: 'path', message: this.#problem }] };
  }
}

export class RouteNotFoundError extends ThreadgateError {
  readonly code = 'TG_NOT_FOUND';
  override readonly statusCode = 404;
}

/** Codes Fastify's own errors get here, so clients see one naming scheme. */
const FASTIFY_CODES: Record<string, string> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'TG_BODY_TOO_LARGE',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'TG_UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'TG_REQUEST_INVALID',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'TG_REQUEST_INVALID',
};

export function toErrorBody(err: unknown): { status: number; body: ErrorBody } {
  if (err instanceof ThreadgateError) {
    return { status: err.statusCode, body: err.toJSON() };
  }
  const fe = err as Partial<FastifyError>;
  const status = typeof fe.statusCode === 'number' && fe.statusCode >= 400 ? fe.statusCode : 500;
  if (status >= 500) return { status, body: { code: 'TG_INTERNAL', message: 'internal error' } };
  if (err instanceof SyntaxError) {
    return { status: 400, body: { code: 'TG_REQUEST_INVALID', message: `malformed JSON: ${err.message}` } };
  }
  const code = (fe.code && FASTIFY_CODES[fe.code]) ?? 'TG_REQUEST_INVALID';
  return { status, body: { code, message: fe.message ?? 'bad request' } };
}

function answerError(err: unknown, request: FastifyRequest, reply: FastifyReply): void {
  const { status, body } = toErrorBody(err);
  if (status >= 500) request.log.error({ err }, 'request failed');
  else request.log.info({ code: body.code, status }, body.message);
  void reply.status(status).send(body);
}

/** Fastify's `frameworkErrors`: a URL the router cannot decode (a broken % escape) is refused like any bad path. */
export function answerFrameworkError(err: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  answerError(err.code === 'FST_ERR_BAD_URL' ? new PathInvalidError('has a % that does not start a two-digit hex escape') : err, request, reply);
}

export function installErrorHandlers(app: FastifyInstance): void {
  app.setErrorHandler(answerError);
  app.setNotFoundHandler((request, reply) => {
    const err = new RouteNotFoundError(`no route ${request.method} ${request.url.split('?')[0]}`);
    void reply.status(404).send(err.toJSON());
  });
}
