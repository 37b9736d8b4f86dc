/**
 * A successful authentication: what the redirect carries for a signed-in user.
 *
 * - code flow: a single-use code (and the state) in the URI query;
 * - implicit flow: token_type bearer, the ID token, for `id_token token` a new
 *   expiring access token, expires_in, socket_url and minimal_bar_version in
 *   the URI hash (spec 01, "Implicit-flow authentication response
 *   parameters"). The sandbox has no WebSocket service: socket_url names the
 *   address where one would be.
 */
import type { User } from '../model.ts';
import { AVATAR_PATH, avatarOf } from '../users/avatars.ts';
import { issueImplicitToken } from './access-tokens.ts';
import type { AuthorizeRequest } from './authorize-request.ts';
import { responseUrl } from './authorize-response.ts';
import type { SignInContext } from './context.ts';
import { signIdToken, TOKEN_LIFETIME_SECONDS } from './id-token.ts';

/** Internal to the platform, sent because the platform sends it; apps must not use it. */
const MINIMAL_BAR_VERSION = '1';

export async function grantUrl(ctx: SignInContext, req: AuthorizeRequest, user: User, issuer: string): Promise<string> {
  if (req.responseType === 'code') {
    const code = ctx.codes.issue({
      clientId: req.app.clientId,
      redirectUri: req.redirectUri,
      userId: user.id,
      nonce: req.nonce,
      scopes: req.scopes,
    });
    return responseUrl(req, { code });
  }
  const idToken = await signIdToken(ctx.keys, {
    issuer,
    clientId: req.app.clientId,
    user,
    nonce: req.nonce,
    scopes: req.scopes,
    now: ctx.state.now(),
    pictureUrl: pictureUrlOf(ctx, user, issuer),
  });
  const params: Record<string, string> = { token_type: 'bearer' };
  if (req.responseType === 'id_token token') {
    params.access_token = issueImplicitToken(ctx.state, user, TOKEN_LIFETIME_SECONDS).token;
  }
  params.id_token = idToken;
  params.expires_in = String(TOKEN_LIFETIME_SECONDS);
  params.socket_url = `${issuer.replace(/^http/, 'ws')}/socket`;
  params.minimal_bar_version = MINIMAL_BAR_VERSION;
  return responseUrl(req, params);
}

/** The full URL of the user's avatar (where the users interface serves it), if the user has one. */
export function pictureUrlOf(ctx: SignInContext, user: User, issuer: string): string | undefined {
  const avatar = avatarOf(ctx.state, user);
  return avatar === undefined ? undefined : `${issuer}${AVATAR_PATH}/${avatar.id}`;
}
