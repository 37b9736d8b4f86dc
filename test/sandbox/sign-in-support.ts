/**
 * Helpers of the sign-in suites: registering an app through the control API,
 * following one step of /authorize without following redirects, reading the
 * parameters of the authentication response from the hash or the query, and
 * checking ID tokens against the sandbox's published keys.
 */
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import type { TestSandbox } from './support.ts';

export interface RegisteredApp {
  client_id: string;
  client_secret: string;
  redirect_uris: string[];
  notes: string[];
}

/** The app's redirect URI used by most tests; https, as spec 01 requires. */
export const APP_REDIRECT = 'https://app.example.test/signed-in';

export async function registerApp(sb: TestSandbox, fields: Record<string, unknown> = {}): Promise<RegisteredApp> {
  const res = await sb.call('POST', '/_sandbox/apps', { name: 'Test app', redirect_uris: [APP_REDIRECT], ...fields });
  if (res.status !== 201) throw new Error(`registering an app answered ${res.status}: ${res.text}`);
  return res.body as RegisteredApp;
}

export interface AuthorizeStep {
  status: number;
  /** The Location header of a redirect. */
  location: string | undefined;
  /** The session cookie set, as `name=value`. */
  cookie: string | undefined;
  contentType: string;
  text: string;
}

/** One request to the sandbox, never following a redirect. */
export async function step(url: string, init: RequestInit = {}): Promise<AuthorizeStep> {
  const res = await fetch(url, { redirect: 'manual', ...init });
  const setCookie = res.headers.get('set-cookie');
  return {
    status: res.status,
    location: res.headers.get('location') ?? undefined,
    cookie: setCookie === null ? undefined : setCookie.split(';')[0],
    contentType: res.headers.get('content-type') ?? '',
    text: await res.text(),
  };
}

/** GET /authorize with `params` (in this order), optionally with a session cookie. */
export function authorize(sb: TestSandbox, params: Record<string, string> | [string, string][], cookie?: string) {
  const query = new URLSearchParams(params).toString().replace(/\+/g, '%20');
  return step(`${sb.url}/authorize?${query}`, cookie === undefined ? {} : { headers: { cookie } });
}

/** Valid implicit-flow parameters for `app`, overridable. */
export function implicitParams(app: RegisteredApp, extra: Record<string, string> = {}): Record<string, string> {
  return {
    scope: 'openid',
    response_type: 'id_token token',
    client_id: app.client_id,
    redirect_uri: app.redirect_uris[0] ?? APP_REDIRECT,
    nonce: 'n-0S6_WzA2Mj',
    state: 'af0ifjsldkj',
    ...extra,
  };
}

/** Where a redirect went and the response parameters it carries in its hash and its query. */
export function redirected(location: string | undefined): { base: string; hash: Record<string, string>; query: Record<string, string> } {
  if (location === undefined) throw new Error('expected a redirect');
  const url = new URL(location);
  const hash = Object.fromEntries(new URLSearchParams(url.hash.replace(/^#/, '')));
  const query = Object.fromEntries(url.searchParams);
  return { base: `${url.origin}${url.pathname}`, hash, query };
}

/** Verifies an ID token's RS256 signature with the sandbox's JWKS, and its issuer and audience. */
export async function verifyIdToken(sb: TestSandbox, idToken: string, clientId: string): Promise<JWTPayload> {
  const jwks = createRemoteJWKSet(new URL(`${sb.url}/.well-known/jwks.json`));
  const { payload, protectedHeader } = await jwtVerify(idToken, jwks, { issuer: sb.url, audience: clientId, algorithms: ['RS256'] });
  if (protectedHeader.alg !== 'RS256') throw new Error(`unexpected alg ${protectedHeader.alg}`);
  return payload;
}
