/**
 * The access tokens sign-in hands out (spec 01, Authentication 2–3):
 *
 * - code flow: the user's API token itself (type `Token`, never expires) —
 *   the first non-expiring token the sandbox holds for the user, generated
 *   when the user has none yet;
 * - implicit flow: a new token (type `Bearer`) that expires `expires_in`
 *   seconds later on the sandbox clock, with the same scopes and permissions
 *   as the user's API token. Expired ones are dropped at the next implicit
 *   issue; until then they answer 401 `Token expired.`, after it
 *   `Invalid token.`.
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

const expiring = (token: ApiToken) => token.expiresAt !== undefined;

/** How many expiring (implicit-flow) access tokens the sandbox holds, expired ones not yet swept included. */
export function implicitTokenCount(state: SandboxState): number {
  let count = 0;
  for (const token of state.tokens.values()) if (expiring(token)) count += 1;
  return count;
}

/** A new implicit-flow token; expired ones are dropped first (sandbox clock), so `state.tokens` stays small. */
export function issueImplicitToken(state: SandboxState, user: User, lifetimeSeconds: number): ApiToken {
  const now = state.now();
  for (const [key, token] of state.tokens) {
    if (expiring(token) && (token.expiresAt ?? 0) <= now) state.tokens.delete(key);
  }
  const base = userApiToken(state, user);
  const issued: ApiToken = {
    ...base,
    token: randomBytes(20).toString('hex'),
    scopes: new Set(base.scopes),
    expiresAt: now + lifetimeSeconds * 1000,
  };
  state.tokens.set(issued.token, issued);
  return issued;
}
