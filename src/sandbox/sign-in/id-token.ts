/**
 * ID tokens (spec 01, "ID token"): RS256 JWTs with exactly the documented
 * claims — iss, sub, aud (one element: the client_id), exp, iat, nonce, org —
 * plus name, given_name, family_name (the users interface's full_name,
 * first_name, last_name), picture (when the user has an avatar)
 * for scope profile, and email, email_verified for scope email. Times come
 * from the sandbox clock, so advancing it expires tokens.
 */
import { SignJWT } from 'jose';
import { IdTokenClaims } from '../../platform/schemas/sign-in.ts';
import type { User } from '../model.ts';
import { firstNameOf, lastNameOf } from '../users/user-view.ts';
import { ID_TOKEN_ALG, type SigningKeys } from './keys.ts';

/** How long an ID token is valid; also the implicit access token's expires_in. */
export const TOKEN_LIFETIME_SECONDS = 3600;

export interface IdTokenRequest {
  issuer: string;
  clientId: string;
  user: User;
  nonce: string;
  scopes: readonly string[];
  /** Epoch milliseconds of the sandbox clock. */
  now: number;
  /** Full URL of the user's avatar, if any. */
  pictureUrl: string | undefined;
}

/** The claims of one ID token; checked against the shared schema so the sandbox never issues what a client would refuse. */
function idTokenClaims(req: IdTokenRequest): IdTokenClaims {
  const iat = Math.floor(req.now / 1000);
  const claims: IdTokenClaims = {
    iss: req.issuer,
    sub: req.user.id,
    aud: [req.clientId],
    exp: iat + TOKEN_LIFETIME_SECONDS,
    iat,
    nonce: req.nonce,
    org: req.user.organizationId,
  };
  if (req.scopes.includes('profile')) {
    const given = firstNameOf(req.user);
    const family = lastNameOf(req.user);
    claims.name = [given, family].filter((n) => n !== '').join(' ') || req.user.name;
    claims.given_name = given;
    claims.family_name = family;
    if (req.pictureUrl !== undefined) claims.picture = req.pictureUrl;
  }
  if (req.scopes.includes('email') && typeof req.user.email === 'string') {
    claims.email = req.user.email;
    // Sandbox users are made by the control API or an organization manager: their addresses count as verified.
    claims.email_verified = true;
  }
  return IdTokenClaims.parse(claims);
}

export async function signIdToken(keys: SigningKeys, req: IdTokenRequest): Promise<string> {
  const { kid, privateKey } = await keys.current();
  return new SignJWT({ ...idTokenClaims(req) }).setProtectedHeader({ alg: ID_TOKEN_ALG, kid, typ: 'JWT' }).sign(privateKey);
}
