/**
 * The access tokens sign-in hands out (spec 01, Authentication 2–3):
 *
 * - code flow: the user's API token itself (type `Token`, never expires) —
 *   the first non-expiring token the sandbox holds for the user, generated
 *   when the user has none yet;
 * - implicit flow: a new token (type `Bearer`) that expires `expires_in`
 *   seconds later on the sandbox clock, with the same scopes and permissions
 *   as the user's API token.
 */
import { randomBytes } from 'node:crypto';
import type { ApiToken, User } from '../model.ts';
import type { SandboxState } from '../state.ts';

export function userApiToken(state: SandboxState, user: User): ApiToken {
  for (const token of state.tokens.values()) {
    if (token.userId === user.id && token.expiresAt === undefined) return token;
  }
  return state.issueToken(user.organizationId, user.id, []);
}

export function issueImplicitToken(state: SandboxState, user: User, lifetimeSeconds: number): ApiToken {
  const base = userApiToken(state, user);
  const issued: ApiToken = {
    ...base,
    token: randomBytes(20).toString('hex'),
    scopes: new Set(base.scopes),
    expiresAt: state.now() + lifetimeSeconds * 1000,
  };
  state.tokens.set(issued.token, issued);
  return issued;
}
