/**
 * Errors of the sandbox's sign-in endpoints. They carry an OAuth error code
 * (spec 01, "Errors", plus the token endpoint's RFC 6749 §5.2 codes) and are
 * answered in the OAuth way, never through the sandbox's `{detail}` body:
 *
 * - `AuthorizeRedirectError`: the redirect_uri is trusted, so the error goes
 *   back to the app in the redirect (hash for the implicit flow, query for the
 *   code flow);
 * - `AuthorizeRequestError`: the client_id or redirect_uri cannot be trusted,
 *   so nothing is redirected (RFC 6749 §4.1.2.1): a 400 page naming the error;
 * - `TokenEndpointError`: a JSON `{error, error_description}` answer of /token.
 */
import type { OAUTH_ERROR_CODES } from '../../platform/schemas/sign-in.ts';
import { SandboxError } from '../errors.ts';

export type AuthorizeErrorCode = (typeof OAUTH_ERROR_CODES)[number];
export type TokenErrorCode = 'invalid_request' | 'invalid_client' | 'invalid_grant' | 'unsupported_grant_type';

export class AuthorizeRedirectError extends SandboxError {
  readonly code = 'TG_SANDBOX_AUTHORIZE_REDIRECTED';
  /** Only if it ever escaped its route: the answer is normally the redirect. */
  override readonly statusCode = 400;

  readonly error: AuthorizeErrorCode;

  constructor(error: AuthorizeErrorCode, description: string) {
    super(description);
    this.error = error;
  }
}

export class AuthorizeRequestError extends SandboxError {
  readonly code = 'TG_SANDBOX_AUTHORIZE_REFUSED';
  override readonly statusCode = 400;

  readonly error: AuthorizeErrorCode;

  constructor(error: AuthorizeErrorCode, description: string) {
    super(description);
    this.error = error;
  }
}

export class TokenEndpointError extends SandboxError {
  readonly code = 'TG_SANDBOX_TOKEN_REFUSED';
  override readonly statusCode: 400 | 401;

  readonly error: TokenErrorCode;

  constructor(
    error: TokenErrorCode,
    description: string,
    /** 401 when client authentication failed through the Authorization header (RFC 6749 §5.2). */
    status: 400 | 401 = 400,
  ) {
    super(description);
    this.error = error;
    this.statusCode = status;
  }
}

/** OAuth descriptions are ASCII text (spec 01): anything else is replaced. */
export function asciiDescription(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, '?');
}
