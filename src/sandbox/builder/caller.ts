/**
 * Who is calling a builder path that has no organization in it
 * (/api/interactions, /api/v1/collections, /api/templates): the token is
 * `callerOf` (auth.ts), the organization is the one the token belongs to. `Authorization: Token <t>` or `Bearer <t>`,
 * as on every other path (spec 02, Authentication); a missing, unknown or
 * expired token is 401.
 */
import type { ApiToken } from '../model.ts';
import type { Actor } from './model.ts';

export function actorOf(token: ApiToken): Actor {
  return { userId: token.userId, organizationId: token.organizationId };
}
