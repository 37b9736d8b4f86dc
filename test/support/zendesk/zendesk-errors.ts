/**
 * The counterpart's refusals, in the shapes Zendesk's reference shows for its
 * errors (https://developer.zendesk.com/api-reference/introduction/requests/
 * and the examples on each endpoint's page):
 *
 *   401  {"error": "Couldn't authenticate you"}
 *   403  {"error": "Forbidden", "description": "You do not have access to this page. …"}
 *   404  {"error": "RecordNotFound", "description": "Not found"} (an unknown path: "InvalidEndpoint")
 *   400  {"error": "InvalidValue" | "InvalidPaginationParameter", "description": "…"}
 *   422  {"error": "RecordInvalid", "description": "Record validation errors", "details": {"<field>": [{"description": "…"}]}}
 *   429  {"error": "APIRateLimitExceeded", "description": "…"} with Retry-After (seconds)
 *
 * The reference names the `error` codes and shapes; where it quotes no
 * description for a case (a bad page size, a missing file name), the words
 * here are the counterpart's own.
 */

export class ZdError extends Error {
  readonly status: number;
  readonly body: unknown;
  readonly headers: Record<string, string>;

  constructor(status: number, body: unknown, headers: Record<string, string> = {}) {
    super(`${status} ${JSON.stringify(body)}`);
    this.status = status;
    this.body = body;
    this.headers = headers;
  }
}

export const unauthenticated = () => new ZdError(401, { error: "Couldn't authenticate you" });

export const forbidden = () =>
  new ZdError(403, { error: 'Forbidden', description: 'You do not have access to this page. Please contact the account owner of this help desk for further help.' });

export const notFound = () => new ZdError(404, { error: 'RecordNotFound', description: 'Not found' });

export const noEndpoint = () => new ZdError(404, { error: 'InvalidEndpoint', description: 'Not found' });

export const invalidValue = (description: string) => new ZdError(400, { error: 'InvalidValue', description });

export const invalidPage = (description: string) => new ZdError(400, { error: 'InvalidPaginationParameter', description });

export const recordInvalid = (field: string, description: string) =>
  new ZdError(422, { error: 'RecordInvalid', description: 'Record validation errors', details: { [field]: [{ description, error: 'InvalidValue' }] } });

export const rateLimited = (description: string, retryAfterSeconds: number) =>
  new ZdError(429, { error: 'APIRateLimitExceeded', description }, { 'retry-after': String(retryAfterSeconds) });
