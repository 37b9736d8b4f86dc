/**
 * POST {auth_url}/token: the code flow's exchange. Spec 01 leaves method,
 * parameters and answer "not shown"; the sandbox speaks standard OAuth 2.0
 * (RFC 6749 §4.1.3, §5) so OpenID Connect libraries work unchanged:
 *
 * - body `application/x-www-form-urlencoded` (what libraries send) or JSON:
 *   grant_type=authorization_code, code, redirect_uri;
 * - the app ID and secret by HTTP Basic (client_secret_basic) or as
 *   client_id/client_secret in the body (client_secret_post), never both;
 * - answer `{access_token, token_type: "Token", id_token, scope}`: the user's
 *   own API token, which never expires (spec 01, Authentication 3), so there
 *   is no expires_in and no refresh_token;
 * - errors `{error, error_description}`: invalid_request, invalid_client
 *   (401 with WWW-Authenticate when Basic was used), invalid_grant (unknown,
 *   used or expired code, another app's code, another redirect_uri),
 *   unsupported_grant_type.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { AppRecord } from './apps.ts';
import { userApiToken } from './access-tokens.ts';
import { issuerOf, type SignInContext } from './context.ts';
import { asciiDescription, TokenEndpointError } from './errors.ts';
import { pictureUrlOf } from './grant.ts';
import { signIdToken } from './id-token.ts';
import { findActiveUser } from './login-page.ts';

export const TOKEN_PATH = '/token';

export function registerTokenRoute(app: FastifyInstance, ctx: SignInContext): void {
  app.post(TOKEN_PATH, async (request, reply) => {
    void reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
    try {
      const form = formOf(request.body);
      const client = authenticateClient(ctx, form, request.headers.authorization);
      const grantType = one(form, 'grant_type');
      if (grantType !== 'authorization_code') {
        throw new TokenEndpointError('unsupported_grant_type', 'Only grant_type=authorization_code is supported.');
      }
      const code = one(form, 'code');
      const redirectUri = one(form, 'redirect_uri');
      const grant = ctx.codes.redeem(code);
      if (grant === undefined) throw new TokenEndpointError('invalid_grant', 'The code is unknown, already used or expired.');
      if (grant.clientId !== client.clientId) throw new TokenEndpointError('invalid_grant', 'The code was issued to another app.');
      if (grant.redirectUri !== redirectUri) throw new TokenEndpointError('invalid_grant', 'redirect_uri differs from the authorization request.');
      const user = findActiveUser(ctx.state, grant.userId);
      if (user === undefined) throw new TokenEndpointError('invalid_grant', 'The user who signed in no longer exists.');

      const idToken = await signIdToken(ctx.keys, {
        issuer: issuerOf(request),
        clientId: client.clientId,
        user,
        nonce: grant.nonce,
        scopes: grant.scopes,
        now: ctx.state.now(),
        pictureUrl: pictureUrlOf(ctx, user, issuerOf(request)),
      });
      return { access_token: userApiToken(ctx.state, user).token, token_type: 'Token', id_token: idToken, scope: grant.scopes.join(' ') };
    } catch (err) {
      if (!(err instanceof TokenEndpointError)) throw err;
      if (err.statusCode === 401) void reply.header('www-authenticate', 'Basic realm="token"');
      return reply.status(err.statusCode).send({ error: err.error, error_description: asciiDescription(err.message) });
    }
  });
}

/** The request parameters: a parsed form, or a JSON object of strings. */
function formOf(body: unknown): URLSearchParams {
  if (body instanceof URLSearchParams) return body;
  if (body !== null && typeof body === 'object' && !Array.isArray(body)) {
    const form = new URLSearchParams();
    for (const [key, value] of Object.entries(body)) {
      if (typeof value !== 'string') throw new TokenEndpointError('invalid_request', `${key} must be a string.`);
      form.append(key, value);
    }
    return form;
  }
  throw new TokenEndpointError('invalid_request', 'Send the parameters as application/x-www-form-urlencoded or a JSON object.');
}

/** A parameter given exactly once. */
function one(form: URLSearchParams, name: string): string {
  const values = form.getAll(name);
  if (values.length > 1) throw new TokenEndpointError('invalid_request', `Repeated parameter: ${name}.`);
  if (values[0] === undefined || values[0] === '') throw new TokenEndpointError('invalid_request', `${name} is required.`);
  return values[0];
}

function authenticateClient(ctx: SignInContext, form: URLSearchParams, authorization: string | undefined): AppRecord {
  const basic = basicCredentials(authorization);
  if (basic !== undefined && form.has('client_secret')) {
    throw new TokenEndpointError('invalid_request', 'Use one client authentication mechanism: HTTP Basic or client_secret in the body, not both.');
  }
  const status = basic === undefined ? 400 : 401;
  const clientId = basic?.id ?? (form.has('client_id') ? one(form, 'client_id') : undefined);
  const secret = basic?.secret ?? (form.has('client_secret') ? one(form, 'client_secret') : undefined);
  if (basic !== undefined && form.has('client_id') && one(form, 'client_id') !== basic.id) {
    throw new TokenEndpointError('invalid_request', 'client_id in the body differs from the HTTP Basic credentials.');
  }
  if (clientId === undefined || secret === undefined) {
    throw new TokenEndpointError('invalid_client', 'Client authentication is required: the app ID and secret.', 401);
  }
  const app = ctx.apps.get(clientId);
  if (app === undefined || !sameSecret(app.secret, secret)) throw new TokenEndpointError('invalid_client', 'Unknown app or wrong app secret.', status);
  if (!app.enabled) throw new TokenEndpointError('invalid_client', 'The app is disabled.', status);
  return app;
}

/** Compares secrets in constant time (over their digests, so lengths do not leak either). */
function sameSecret(expected: string, given: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(expected), digest(given));
}

/** `Authorization: Basic base64(urlencode(id):urlencode(secret))` (RFC 6749 §2.3.1). */
function basicCredentials(header: string | undefined): { id: string; secret: string } | undefined {
  const match = header === undefined ? null : /^Basic\s+(\S+)\s*$/i.exec(header);
  if (match?.[1] === undefined) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw new TokenEndpointError('invalid_client', 'Malformed HTTP Basic credentials.', 401);
  const decode = (part: string) => {
    try {
      return decodeURIComponent(part.replace(/\+/g, ' '));
    } catch {
      throw new TokenEndpointError('invalid_client', 'Malformed HTTP Basic credentials.', 401);
    }
  };
  return { id: decode(decoded.slice(0, colon)), secret: decode(decoded.slice(colon + 1)) };
}
