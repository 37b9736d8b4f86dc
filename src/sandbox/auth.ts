/**
 * Authentication of the platform API paths `/api/v5/orgs/<organization_id>/...`.
 *
 * `Authorization: Token <t>` or `Bearer <t>` (spec 03, Authentication). Checks,
 * in order: credentials (401), the organization in the path exists (404, as
 * spec 03 lists "Organization not found" for register), the token belongs to
 * that organization (403: spec 01 lists "403 no access to the organization"
 * for this case, and the organization's existence is already known from the
 * 404 above), and finally the scope the endpoint needs (403).
 */
import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { SandboxForbiddenError, SandboxNotFoundError, SandboxUnauthenticatedError } from './errors.ts';
import type { ApiToken } from './model.ts';
import type { SandboxState } from './state.ts';

const AUTHORIZATION = /^(Token|Bearer)\s+(\S+)\s*$/i;

export function organizationIdOf(request: FastifyRequest): string {
  return (request.params as { organization_id?: string }).organization_id ?? '';
}

/**
 * The issued, unexpired token `raw` names, or 401 ("Invalid token." /
 * "Token expired."); `source`, when given, says in the message where the
 * token came from.
 */
export function validToken(state: SandboxState, raw: string | undefined, source?: string): ApiToken {
  const where = source === undefined ? '' : ` (${source})`;
  const issued = raw === undefined ? undefined : state.tokens.get(raw);
  if (!issued) throw new SandboxUnauthenticatedError(`Invalid token${where}.`);
  if (issued.expiresAt !== undefined && issued.expiresAt <= state.now()) throw new SandboxUnauthenticatedError(`Token expired${where}.`);
  return issued;
}

/** The caller's token: the request's credentials, or 401 (paths without an organization use this alone). */
export function callerOf(state: SandboxState, request: FastifyRequest): ApiToken {
  const header = request.headers.authorization;
  if (header === undefined || header === '') {
    throw new SandboxUnauthenticatedError('Authentication credentials were not provided.');
  }
  return validToken(state, AUTHORIZATION.exec(header)?.[2]);
}

export function authenticate(state: SandboxState, request: FastifyRequest, scope?: string): ApiToken {
  const issued = callerOf(state, request);

  const organizationId = organizationIdOf(request);
  if (!state.organizations.has(organizationId)) throw new SandboxNotFoundError('Organization not found.');
  if (issued.organizationId !== organizationId) {
    throw new SandboxForbiddenError('You do not have access to this organization.');
  }
  if (scope !== undefined && !issued.scopes.has(scope)) {
    throw new SandboxForbiddenError(`You do not have permission to perform this action (the ${scope} scope is required).`);
  }
  return issued;
}

/** An onRequest hook: runs before the body is parsed, so a bad body never hides a 401. */
export function requireAccess(state: SandboxState, scope?: string): onRequestAsyncHookHandler {
  return async (request) => {
    authenticate(state, request, scope);
  };
}
