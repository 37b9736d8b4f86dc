/**
 * Workflow reporting in the sandbox: the spec 02 endpoints under the API
 * address and their control API under /_sandbox, sharing one ReportingState.
 */
import type { FastifyInstance } from 'fastify';
import type { SandboxContext } from '../context.ts';
import { requireReportingAccess } from './access.ts';
import { registerReportingControlRoutes } from './control-routes.ts';
import { installReportingErrorShape } from './errors.ts';
import { registerWorkflowReportingRoutes } from './routes.ts';
import { ReportingState } from './state.ts';

export const WORKFLOW_PATH = '/api/reporting/workflow/v1/orgs/:organization_id/workflows/:workflow_id';

export async function registerReporting(app: FastifyInstance, ctx: SandboxContext): Promise<void> {
  const reporting = new ReportingState();
  await app.register(
    async (scope) => {
      scope.addHook('onRequest', requireReportingAccess(ctx.state, reporting.access));
      installReportingErrorShape(scope);
      registerWorkflowReportingRoutes(scope, reporting);
    },
    { prefix: WORKFLOW_PATH },
  );
  await app.register(async (scope) => registerReportingControlRoutes(scope, ctx, reporting), { prefix: '/_sandbox' });
}
