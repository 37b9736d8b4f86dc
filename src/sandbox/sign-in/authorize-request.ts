/**
 * Checking GET {auth_url}/authorize (spec 01), in the order that decides how
 * an error travels:
 *
 * 1. client_id and redirect_uri: until both are known to belong together, the
 *    redirect target cannot be trusted, so problems are answered here with a
 *    400 page (invalid_client for an unknown app, invalid_request otherwise);
 * 2. everything else is answered in the redirect: in the URI query for
 *    response_type=code, in the URI hash otherwise — invalid_client for a
 *    disabled app, invalid_scope for a scope without openid or with unknown
 *    values, invalid_request for a missing, repeated, unknown or malformed
 *    parameter.
 *
 * The sandbox accepts one parameter beyond spec 01: `login_hint` (a user ID
 * or e-mail address), a shortcut for scripts that signs that user in without
 * the login page.
 */
import { z } from 'zod';
import { AuthorizeQuery } from '../../platform/schemas/sign-in.ts';
import type { AppRecord, AppRegistry } from './apps.ts';
import { AuthorizeRedirectError, AuthorizeRequestError } from './errors.ts';

export type ResponseMode = 'query' | 'fragment';

export interface AuthorizeRequest {
  app: AppRecord;
  redirectUri: string;
  mode: ResponseMode;
  responseType: 'id_token token' | 'id_token' | 'code';
  scopes: string[];
  nonce: string;
  state: string | undefined;
  prompt: 'none' | 'login' | undefined;
  loginHint: string | undefined;
}

/** The spec's parameters, redirect_uri checked against the app instead of by scheme, plus login_hint. */
const SandboxAuthorizeQuery = AuthorizeQuery.extend({
  redirect_uri: z.string(),
  login_hint: z.string().min(1, { error: 'login_hint may not be blank.' }).optional(),
});

/** Where a failed request is sent back to, once client_id and redirect_uri are trusted. */
export interface TrustedTarget {
  app: AppRecord;
  redirectUri: string;
  mode: ResponseMode;
  state: string | undefined;
}

/** Step 1: the app and redirect target, or a 400 that is not redirected. */
export function trustedTarget(params: URLSearchParams, apps: AppRegistry): TrustedTarget {
  const clientId = single(params, 'client_id');
  const redirectUri = single(params, 'redirect_uri');
  if (clientId === undefined) throw new AuthorizeRequestError('invalid_request', 'client_id is required, once.');
  const app = apps.get(clientId);
  if (app === undefined) throw new AuthorizeRequestError('invalid_client', 'Unknown client_id: no app is registered with this ID.');
  if (redirectUri === undefined) throw new AuthorizeRequestError('invalid_request', 'redirect_uri is required, once.');
  if (!apps.allowsRedirect(app, redirectUri)) {
    throw new AuthorizeRequestError('invalid_request', 'redirect_uri does not exactly match an allowed redirect URI of the app.');
  }
  const mode: ResponseMode = params.get('response_type') === 'code' ? 'query' : 'fragment';
  return { app, redirectUri, mode, state: single(params, 'state') };
}

/** Step 2: the whole request, or an error to send in the redirect. */
export function parseAuthorizeRequest(params: URLSearchParams, target: TrustedTarget): AuthorizeRequest {
  if (!target.app.enabled) throw new AuthorizeRedirectError('invalid_client', 'The app is disabled.');
  const repeated = [...new Set([...params.keys()].filter((key) => params.getAll(key).length > 1))];
  if (repeated.length > 0) throw new AuthorizeRedirectError('invalid_request', `Repeated parameter: ${repeated.join(', ')}.`);

  const result = SandboxAuthorizeQuery.safeParse(Object.fromEntries(params));
  if (!result.success) {
    const issue = result.error.issues[0];
    const field = issue?.path[0] ?? '';
    const message = issue?.code === 'unrecognized_keys' ? `Unknown parameter: ${issue.keys.join(', ')}.` : (issue?.message ?? 'Malformed request.');
    const scopeProblem = field === 'scope' && params.get('scope') !== null && params.get('scope') !== '';
    throw new AuthorizeRedirectError(scopeProblem ? 'invalid_scope' : 'invalid_request', message);
  }
  const query = result.data;
  return {
    app: target.app,
    redirectUri: target.redirectUri,
    mode: target.mode,
    responseType: query.response_type,
    scopes: [...new Set(query.scope.split(' ').filter((s) => s !== ''))],
    nonce: query.nonce,
    state: query.state,
    prompt: query.prompt,
    loginHint: query.login_hint,
  };
}

/** The value of a parameter given exactly once (undefined when absent, blank or repeated). */
function single(params: URLSearchParams, name: string): string | undefined {
  const values = params.getAll(name);
  return values.length === 1 && values[0] !== '' ? values[0] : undefined;
}
