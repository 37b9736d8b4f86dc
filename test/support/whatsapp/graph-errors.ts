/**
 * The counterpart's refusals, in the Graph API's error shape
 * (https://developers.facebook.com/docs/graph-api/guides/error-handling and
 * https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes):
 *
 *   {"error": {"message": "(#131047) Re-engagement message", "type": "OAuthException", "code": 131047,
 *              "error_data": {"messaging_product": "whatsapp", "details": "…"}, "fbtrace_id": "A…"}}
 *
 * The codes, titles and HTTP statuses are the reference's; where it quotes no
 * `message` or `details` for a case (a body over 4,096 characters, an unknown
 * version, a media id not found), the words are the counterpart's own.
 */
import { randomBytes } from 'node:crypto';

export class GraphError extends Error {
  readonly status: number;
  readonly body: { error: Record<string, unknown> };
  readonly headers: Record<string, string>;

  constructor(status: number, error: { message: string; code: number; type?: string; subcode?: number; details?: string }, headers: Record<string, string> = {}) {
    super(`${status} ${error.message}`);
    this.status = status;
    this.headers = headers;
    this.body = {
      error: {
        message: error.message,
        type: error.type ?? 'OAuthException',
        code: error.code,
        ...(error.subcode === undefined ? {} : { error_subcode: error.subcode }),
        ...(error.details === undefined ? {} : { error_data: { messaging_product: 'whatsapp', details: error.details } }),
        fbtrace_id: `A${randomBytes(12).toString('base64url')}`,
      },
    };
  }
}

/** 190: the token is not one this account knows (HTTP 401). */
export const tokenInvalid = () => new GraphError(401, { message: 'Invalid OAuth access token - Cannot parse access token', code: 190 });

/** 104: no token at all. */
export const tokenMissing = () => new GraphError(400, { message: 'An access token is required to request this resource.', code: 104 });

/** 100: a parameter is missing or wrong; `details` names it. */
export const invalidParameter = (details: string) => new GraphError(400, { message: '(#100) Invalid parameter', code: 100, details });

/** 100/33: no such object, or not one this call can reach. */
export const unsupported = (method: string, id: string) =>
  new GraphError(400, {
    message: `Unsupported ${method.toLowerCase()} request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
    type: 'GraphMethodException',
    code: 100,
    subcode: 33,
  });

/** 2500: a path the API does not have (an unknown version). */
export const unknownPath = (path: string) => new GraphError(400, { message: `Unknown path components: ${path}`, code: 2500 });

/** 131047: the customer last wrote more than 24 hours ago; only a template may go out. */
export const reEngagement = () =>
  new GraphError(400, {
    message: '(#131047) Re-engagement message',
    code: 131047,
    subcode: 2494010,
    details: 'Message failed to send because more than 24 hours have passed since the customer last replied to this number.',
  });

/** 130429: the number's message throughput. */
export const throughputLimited = () => new GraphError(400, { message: '(#130429) Rate limit hit', code: 130429, details: 'Cloud API message throughput has been reached.' });

/** 131056: too many messages to one customer in a short time. */
export const pairLimited = () =>
  new GraphError(400, {
    message: '(#131056) (Business Account, Consumer Account) pair rate limit hit',
    code: 131056,
    details: 'Message failed to send because there were too many messages sent from this phone number to the same phone number in a short period of time.',
  });

/** 131053: a file WhatsApp does not take. */
export const mediaUploadError = (details: string) => new GraphError(400, { message: '(#131053) Media upload error', code: 131053, details });

/** 132001: no approved template of that name in that language. */
export const templateMissing = (name: string, language: string) =>
  new GraphError(404, { message: '(#132001) Template name does not exist in the translation', code: 132001, details: `template name (${name}) does not exist in ${language}` });
