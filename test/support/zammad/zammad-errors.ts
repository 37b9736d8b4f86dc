/**
 * The refusals of the Zammad counterpart, in Zammad's shapes
 * (https://github.com/zammad/zammad/blob/develop/app/controllers/application_controller/handles_errors.rb):
 * a JSON body `{"error": …, "error_human": …}` (both the same words for the
 * errors below), and `X-Failure` beside a 401 or 403. Rack::Attack's throttle
 * (429) and nginx's body limit (413) answer plain text instead.
 */
export class ZammadApiError extends Error {
  readonly status: number;
  readonly body: string;
  readonly headers: Record<string, string>;

  constructor(status: number, body: unknown, headers: Record<string, string> = {}) {
    super(typeof body === 'string' ? body : JSON.stringify(body));
    this.status = status;
    this.body = typeof body === 'string' ? body : JSON.stringify(body);
    this.headers = { 'content-type': typeof body === 'string' ? 'text/plain; charset=utf-8' : 'application/json; charset=utf-8', ...headers };
  }
}

const words = (status: number, error: string, headers: Record<string, string> = {}) => new ZammadApiError(status, { error, error_human: error }, headers);

/** 422 Unprocessable Entity: a value Zammad cannot take. */
export const unprocessable = (error: string) => words(422, error);

/** 404: `ActiveRecord::RecordNotFound`. */
export const notFound = (model: string, id: unknown) => words(404, `Couldn't find ${model} with 'id'=${String(id)}`);

/** 403 from a policy: the record exists but is not the user's to see or change. */
export const forbidden = (error = 'Not authorized') => words(403, error, { 'x-failure': error });

/** 403 without any credentials. */
export const authenticationRequired = () => words(403, 'Authentication required', { 'x-failure': 'Authentication required' });

/** 401 for a token Zammad does not know (`Exceptions::NotAuthorized`). */
export const unknownToken = () => words(401, "Can't find User for Token", { 'x-failure': "Can't find User for Token" });

/** 401 for basic auth (the counterpart keeps no passwords). */
export const badBasicAuth = () => words(401, 'Invalid BasicAuth credentials', { 'x-failure': 'Invalid BasicAuth credentials' });

/** 404 for a path no route matches. */
export const noRoute = (method: string, path: string) => new ZammadApiError(404, { error: `No route matches [${method}] ${JSON.stringify(path)}` });

/** 429 of Rack::Attack's throttle, with its `Retry-After` (seconds to the end of the period). */
export const throttled = (retryAfterSeconds: number) => new ZammadApiError(429, 'Retry later\n', { 'retry-after': String(retryAfterSeconds) });

/** 413 of nginx's `client_max_body_size`. */
export const tooLarge = () =>
  new ZammadApiError(413, '<html>\r\n<head><title>413 Request Entity Too Large</title></head>\r\n<body>\r\n<center><h1>413 Request Entity Too Large</h1></center>\r\n</body>\r\n</html>\r\n', { 'content-type': 'text/html' });

/** 400 for a body that is not JSON (`ActionDispatch::Http::Parameters::ParseError`). */
export const badJson = () => new ZammadApiError(400, { error: 'Error occurred while parsing request parameters.' });
