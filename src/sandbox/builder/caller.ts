/**
 * Who is calling a builder path that has no organization in it
 * (/api/interactions, /api/v1/collections, /api/templates): the organization
 * is the one the token belongs to. `Authorization: Token <t>` or `Bearer <t>`,
 * as on every other path (spec 02, Authentication); a missing, unknown or
 * expired token is 401.
 */
import type { FastifyRequest } from 'fastify';
import { authenticateToken } from '../auth.ts';
import type { ApiToken } from '../model.ts';
import type { SandboxState } from '../state.ts';
import type { Actor } from './model.ts';

export function callerOf(state: SandboxState, request: FastifyRequest): ApiToken {
  return authenticateToken(state, request);
}

export function actorOf(token: ApiToken): Actor {
  return { userId: token.userId, organizationId: token.organizationId };
}
