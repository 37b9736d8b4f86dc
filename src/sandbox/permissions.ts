/**
 * The permissions spec 01 checks per endpoint (Authentication 5): an active
 * subscription for every chat and user endpoint, access to the organization,
 * the reports permission for chat listings and the users permission for
 * user management. Tokens carry them (set through the control API); a token
 * without a permissions record has all of them.
 *
 * These run after `requireAccess` (credentials 401, organization 404, token
 * of another organization 403), as separate hooks, so `requireAccess` keeps
 * serving the other route families unchanged.
 */
import type { onRequestAsyncHookHandler } from 'fastify';
import { callerOf } from './auth.ts';
import { SandboxForbiddenError } from './errors.ts';
import type { ApiToken, TokenPermissions } from './model.ts';
import type { SandboxState } from './state.ts';

const ALL_PERMISSIONS: Readonly<TokenPermissions> = Object.freeze({
  subscription: true,
  organizationAccess: true,
  reports: true,
  users: true,
});

export function permissionsOf(token: ApiToken): TokenPermissions {
  return token.permissions ?? ALL_PERMISSIONS;
}

export function assertSubscription(token: ApiToken): void {
  if (!permissionsOf(token).subscription) throw new SandboxForbiddenError('The organization has no active subscription.');
}

export function assertOrganizationAccess(token: ApiToken): void {
  if (!permissionsOf(token).organizationAccess) throw new SandboxForbiddenError('You do not have access to this organization.');
}

export function assertReports(token: ApiToken): void {
  if (!permissionsOf(token).reports) throw new SandboxForbiddenError('You do not have the reports permission.');
}

export function assertUsersPermission(token: ApiToken): void {
  if (!permissionsOf(token).users) throw new SandboxForbiddenError('You do not have the users permission.');
}

/** Paths without an organization (`/api/v5/users/...`): credentials, then the subscription. */
export function requireSubscription(state: SandboxState): onRequestAsyncHookHandler {
  return async (request) => {
    assertSubscription(callerOf(state, request));
  };
}

export interface OrganizationPermissionNeeds {
  /** 'always' (room listings), 'private-history' (owned chats: only when the organization has it), or none. */
  reports?: 'always' | 'private-history';
}

/** Paths under an organization, after requireAccess: subscription, organization access, maybe reports. */
export function requireOrganizationPermissions(
  state: SandboxState,
  needs: OrganizationPermissionNeeds = {},
): onRequestAsyncHookHandler {
  return async (request) => {
    const token = callerOf(state, request);
    assertSubscription(token);
    assertOrganizationAccess(token);
    if (needs.reports === 'always') assertReports(token);
    if (needs.reports === 'private-history' && state.organizations.get(token.organizationId)?.privateHistory === true) {
      assertReports(token);
    }
  };
}
