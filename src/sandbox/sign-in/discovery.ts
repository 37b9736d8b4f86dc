/**
 * OpenID Provider metadata (OpenID Connect Discovery 1.0) at
 * /.well-known/openid-configuration and the signing keys at
 * /.well-known/jwks.json, so standard OIDC libraries configure themselves
 * from the sandbox's address. The issuer is that address (see issuerOf).
 */
import type { FastifyInstance } from 'fastify';
import { PROMPTS, RESPONSE_TYPES, SCOPES } from '../../platform/schemas/sign-in.ts';
import { CALLBACK_PATH } from './callback-page.ts';
import { issuerOf, type SignInContext } from './context.ts';
import { ID_TOKEN_ALG } from './keys.ts';
import { TOKEN_PATH } from './token-route.ts';

export const DISCOVERY_PATH = '/.well-known/openid-configuration';
export const JWKS_PATH = '/.well-known/jwks.json';

function openIdConfiguration(issuer: string) {
  return {
    issuer,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}${TOKEN_PATH}`,
    jwks_uri: `${issuer}${JWKS_PATH}`,
    response_types_supported: [...RESPONSE_TYPES],
    response_modes_supported: ['query', 'fragment'],
    grant_types_supported: ['authorization_code', 'implicit'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: [ID_TOKEN_ALG],
    scopes_supported: [...SCOPES],
    claims_supported: ['iss', 'sub', 'aud', 'exp', 'iat', 'nonce', 'org', 'name', 'given_name', 'family_name', 'picture', 'email', 'email_verified'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    prompt_values_supported: [...PROMPTS],
    /** Not an OIDC field: the page of spec 01's pop-up and frame re-authentication. */
    callback_endpoint: `${issuer}${CALLBACK_PATH}`,
  };
}

export function registerDiscoveryRoutes(app: FastifyInstance, ctx: SignInContext): void {
  app.get(DISCOVERY_PATH, async (request) => openIdConfiguration(issuerOf(request)));
  app.get(JWKS_PATH, async (_request, reply) => reply.header('cache-control', 'public, max-age=300').send(await ctx.keys.jwks()));
}
