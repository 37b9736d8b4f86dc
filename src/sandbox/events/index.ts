/**
 * Event listing in the sandbox: the spec 02 endpoints under the API address
 * and their control API under /_sandbox, sharing one EventListingState.
 */
import type { FastifyInstance } from 'fastify';
import type { SandboxContext } from '../context.ts';
import { registerEventControlRoutes } from './control-routes.ts';
import { registerEventListingRoutes, requireOwnOrganization } from './routes.ts';
import { EventListingState } from './state.ts';

export const OBJECTIVES_PATH = '/api/objectives/v1/orgs/:organization_id';

export async function registerEventListing(app: FastifyInstance, ctx: SandboxContext): Promise<void> {
  const events = new EventListingState();
  await app.register(
    async (scope) => {
      scope.addHook('onRequest', requireOwnOrganization(ctx.state));
      registerEventListingRoutes(scope, ctx.state, events);
    },
    { prefix: OBJECTIVES_PATH },
  );
  await app.register(async (scope) => registerEventControlRoutes(scope, ctx, events), { prefix: '/_sandbox' });
}
