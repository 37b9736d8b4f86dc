/**
 * Sign-in (spec 01, "Sign-in endpoints", under {auth_url}): the authorization
 * request of the implicit and code flows, the callback landing page, the
 * authentication response carried in the redirect, the code-flow token
 * exchange and the ID-token claims.
 *
 * Requests (URI query parameters) are strict: an undocumented parameter is
 * refused with its name. Responses are loose: unknown fields are kept.
 */
import { z } from 'zod';
import { OpaqueObject } from './request-fields.ts';

/** Spec 01: scope must include openid; the other values are profile and email. */
export const SCOPES = ['openid', 'profile', 'email'] as const;

/**
 * Implicit flow: `id_token token` (ID and access token) or `id_token` (ID token
 * only); code flow: `code`. In the URL the space is encoded as %20, so the
 * decoded value carries a plain space.
 */
export const RESPONSE_TYPES = ['id_token token', 'id_token', 'code'] as const;

/** none: no UI, an error if there is no session (silent refresh); login: always show the login UI. */
export const PROMPTS = ['none', 'login'] as const;

/** Spec 01, "Errors": the OAuth codes returned in the redirect. */
export const OAUTH_ERROR_CODES = [
  'invalid_request',
  'invalid_client',
  'invalid_scope',
  'interaction_required',
  'login_required',
] as const;

const required = (name: string) => z.string({ error: `${name} is required.` }).min(1, { error: `${name} may not be blank.` });

/** A space-separated scope list that includes openid and only documented values. */
const scope = required('scope').superRefine((value, ctx) => {
  const values = value.split(' ').filter((v) => v !== '');
  const unknown = values.filter((v) => !(SCOPES as readonly string[]).includes(v));
  if (unknown.length > 0) {
    ctx.addIssue({ code: 'custom', message: `Unknown scope value(s): ${unknown.join(', ')}; allowed: ${SCOPES.join(', ')}.` });
  }
  if (!values.includes('openid')) ctx.addIssue({ code: 'custom', message: 'scope must include openid.' });
});

/**
 * GET {auth_url}/authorize, URI-query-encoded. `login_hint` and other OpenID
 * Connect parameters are not in spec 01 and are refused like any unknown
 * parameter. The code flow's further parameters: not shown.
 */
export const AuthorizeQuery = z.strictObject({
  scope,
  response_type: z.enum(RESPONSE_TYPES, {
    error: `response_type must be one of: ${RESPONSE_TYPES.map((t) => `"${t}"`).join(', ')}.`,
  }),
  client_id: z.uuid({ error: 'client_id must be the app ID (a UUID).' }),
  /** Must exactly match an allowed redirect URI of the app; https only. */
  redirect_uri: z.url({ protocol: /^https$/, error: 'redirect_uri must be an https URL.' }),
  /** Returned unmodified as the ID token's nonce claim. */
  nonce: required('nonce'),
  /** Recommended: opaque, returned unchanged; the app verifies it against CSRF. */
  state: z.string().optional(),
  prompt: z.enum(PROMPTS, { error: 'prompt must be none or login.' }).optional(),
});
export type AuthorizeQuery = z.input<typeof AuthorizeQuery>;

/** parent: the page runs in a frame; opener: it runs in a pop-up. */
export const CALLBACK_TARGETS = ['parent', 'opener'] as const;

/** An origin (`scheme://host[:port]`, nothing after it); the wildcard * is forbidden (spec 01, "Limits"). */
const origin = required('origin').superRefine((value, ctx) => {
  if (value === '*') {
    ctx.addIssue({ code: 'custom', message: 'The wildcard origin * is not allowed.' });
    return;
  }
  let parsed: URL | undefined;
  try {
    parsed = new URL(value);
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined || parsed.origin === 'null' || parsed.origin !== value) {
    ctx.addIssue({ code: 'custom', message: 'Enter an origin: scheme://host[:port], with no path or trailing slash.' });
  }
});

/** GET {auth_url}/callback: the helper landing page for pop-up or frame re-authentication. */
export const CallbackQuery = z.strictObject({
  target: z.enum(CALLBACK_TARGETS, { error: 'target must be parent or opener.' }),
  origin,
  /** Equal to the client_id of the authentication request. */
  client_id: z.uuid({ error: 'client_id must be the app ID (a UUID).' }),
});
export type CallbackQuery = z.input<typeof CallbackQuery>;

/** The prefix of the cross-window message the callback page posts; the rest is the response's hash string. */
export const CALLBACK_MESSAGE_PREFIX = 'svc-auth-callback:';

/**
 * The authentication response parameters from a callback message, or
 * undefined when the message does not start with the prefix (such messages
 * must be ignored). A leading `#` of the hash string is tolerated.
 */
export function parseCallbackMessage(message: unknown): Record<string, string> | undefined {
  if (typeof message !== 'string' || !message.startsWith(CALLBACK_MESSAGE_PREFIX)) return undefined;
  const hash = message.slice(CALLBACK_MESSAGE_PREFIX.length).replace(/^#/, '');
  return Object.fromEntries(new URLSearchParams(hash));
}

// ─── Authentication response (the redirect) ──────────────────────────────────

/**
 * Implicit flow, success, in the URI hash (so every value is text; expires_in
 * is read as a number). `token_type` is documented as "always bearer"; it is
 * compared case-insensitively, as OAuth token types are.
 */
export const ImplicitAuthSuccess = z.looseObject({
  token_type: z.string().refine((t) => t.toLowerCase() === 'bearer', { error: 'token_type must be bearer.' }),
  /** Only when response_type was `id_token token`. */
  access_token: z.string().optional(),
  id_token: z.string(),
  /** The request's state, unmodified (absent when none was sent). */
  state: z.string().optional(),
  /** Seconds the access token is valid, from the response. */
  expires_in: z.coerce.number().int().nonnegative(),
  /** Base WebSocket URL for real-time subscription; see socketUrlWithToken. */
  socket_url: z.string(),
  /** Internal; must not be used. */
  minimal_bar_version: z.string().optional(),
});
export type ImplicitAuthSuccess = z.infer<typeof ImplicitAuthSuccess>;

/** Implicit flow, failure (also the answer of a failed silent refresh with prompt=none). */
export const AuthError = z.looseObject({
  error: z.enum(OAUTH_ERROR_CODES),
  /** ASCII text. */
  error_description: z.string().optional(),
  state: z.string().optional(),
});
export type AuthError = z.infer<typeof AuthError>;

export const ImplicitAuthResponse = z.union([AuthError, ImplicitAuthSuccess]);
export type ImplicitAuthResponse = z.infer<typeof ImplicitAuthResponse>;

/** Code flow: the code and state in the redirect's URI query. Further parameters: not shown. */
export const CodeAuthResponse = z.looseObject({
  code: z.string().min(1),
  state: z.string().optional(),
});
export type CodeAuthResponse = z.infer<typeof CodeAuthResponse>;

// ─── Token exchange (code flow) ─────────────────────────────────────────────

/**
 * {auth_url}/token: "Method, parameters and response shape: not shown", nor
 * how the app ID and secret are presented. Any object; the endpoint list
 * checks no body, since OAuth token requests are usually form-encoded.
 */
export const TokenRequest = OpaqueObject;

/**
 * Spec 01 says only that the app "receives access_token and possibly
 * id_token"; token_type is the word for the Authorization header (Token for
 * code-flow tokens). Everything else: not shown, kept.
 */
export const TokenResponse = z.looseObject({
  access_token: z.string(),
  id_token: z.string().optional(),
  token_type: z.string().optional(),
});
export type TokenResponse = z.infer<typeof TokenResponse>;

// ─── ID token ───────────────────────────────────────────────────────────────

/** Spec 01, "ID token": the claims always present, then those added by the profile and email scopes. */
export const IdTokenClaims = z.looseObject({
  /** Issuing URL (the authorize endpoint address). */
  iss: z.string(),
  /** User ID. */
  sub: z.uuid(),
  /** Exactly one element: the client_id (app ID). */
  aud: z.array(z.string()).length(1, { error: 'aud must have exactly one element.' }),
  /** Seconds since 1970-01-01T00:00:00Z. */
  exp: z.number().int(),
  iat: z.number().int(),
  /** The authentication request's nonce, unmodified. */
  nonce: z.string(),
  /** Organization ID of the user. */
  org: z.uuid(),
  // scope profile
  name: z.string().optional(),
  given_name: z.string().optional(),
  family_name: z.string().optional(),
  /** Full avatar URL, if any. */
  picture: z.string().optional(),
  // scope email
  email: z.string().optional(),
  email_verified: z.boolean().optional(),
});
export type IdTokenClaims = z.infer<typeof IdTokenClaims>;

/** The claims, also checked against the app's client_id and the request's nonce. */
export function idTokenClaimsFor(expected: { clientId: string; nonce: string }) {
  return IdTokenClaims.superRefine((claims, ctx) => {
    if (claims.aud[0] !== expected.clientId) {
      ctx.addIssue({ code: 'custom', path: ['aud', 0], message: 'aud must be the app client_id.' });
    }
    if (claims.nonce !== expected.nonce) {
      ctx.addIssue({ code: 'custom', path: ['nonce'], message: 'nonce does not match the authentication request.' });
    }
  });
}

/** socket_url with the access token as URL parameter `token` (`?` when the URL has no query yet, else `&`). */
export function socketUrlWithToken(socketUrl: string, accessToken: string): string {
  const separator = socketUrl.includes('?') ? '&' : '?';
  return `${socketUrl}${separator}token=${encodeURIComponent(accessToken)}`;
}
