/**
 * The sandbox's form data (spec 02): list, count, delete and CSV export under
 * /api/orgs/<organization_id>/forms on the sandbox's own address (in place of
 * {builder_url}), and the seeding route under /_sandbox. One call registers both.
 */
import type { FastifyInstance } from 'fastify';
import { requireAccess } from '../auth.ts';
import type { SandboxContext } from '../context.ts';
import { registerFormControlRoutes } from './control-routes.ts';
import { registerFormRoutes } from './form-routes.ts';

export async function registerForms(app: FastifyInstance, ctx: SandboxContext): Promise<void> {
  await app.register(
    async (scope) => {
      scope.addHook('onRequest', requireAccess(ctx.state));
      registerFormRoutes(scope, ctx);
    },
    { prefix: '/api/orgs/:organization_id/forms' },
  );
  await app.register(async (scope) => registerFormControlRoutes(scope, ctx), { prefix: '/_sandbox' });
}
