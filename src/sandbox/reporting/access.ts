/**
 * Who may read workflow reporting (spec 02, Authentication 4 and Errors):
 * a valid token (401), of the organization in the path (404 when it does not
 * exist, 403 when it is another organization's), an active subscription
 * (403), access to the organization (403) and the reporting permission (403).
 *
 * The token's own permissions (spec 01's, set with
 * PUT /_sandbox/tokens/<token>/permissions: subscription, organization_access,
 * reports) count, and so do the reporting switches of
 * POST /_sandbox/reporting-access (an organization's subscription, a token's
 * reporting permission).
 */
import type { onRequestAsyncHookHandler } from 'fastify';
import { authenticate } from '../auth.ts';
import { SandboxForbiddenError } from '../errors.ts';
import { assertOrganizationAccess, assertReports, assertSubscription } from '../permissions.ts';
import type { SandboxState } from '../state.ts';
import type { ReportingAccess } from './model.ts';

export function requireReportingAccess(state: SandboxState, access: ReportingAccess): onRequestAsyncHookHandler {
  return async (request) => {
    const token = authenticate(state, request);
    if (access.inactiveSubscriptions.has(token.organizationId)) {
      throw new SandboxForbiddenError('The organization has no active subscription.');
    }
    assertSubscription(token);
    assertOrganizationAccess(token);
    if (access.tokensWithoutPermission.has(token.token)) {
      throw new SandboxForbiddenError('You do not have the reporting permission.');
    }
    assertReports(token);
  };
}
