/**
 * The authentication response: a redirect to the app's redirect_uri carrying
 * its parameters in the URI hash (implicit flow) or in the URI query (code
 * flow), the state always returned unchanged (spec 01).
 */
import { asciiDescription, type AuthorizeErrorCode } from './errors.ts';
import type { ResponseMode } from './authorize-request.ts';

export interface RedirectTarget {
  redirectUri: string;
  mode: ResponseMode;
  state: string | undefined;
}

/** The redirect URL with `params` (and the state) added in the hash or the query. */
export function responseUrl(target: RedirectTarget, params: Record<string, string>): string {
  const all = new URLSearchParams(params);
  if (target.state !== undefined) all.set('state', target.state);
  if (target.mode === 'fragment') return `${target.redirectUri}#${all.toString()}`;
  const url = new URL(target.redirectUri);
  for (const [key, value] of all) url.searchParams.append(key, value);
  return url.toString();
}

export function errorResponseUrl(target: RedirectTarget, error: AuthorizeErrorCode, description: string): string {
  return responseUrl(target, { error, error_description: asciiDescription(description) });
}
