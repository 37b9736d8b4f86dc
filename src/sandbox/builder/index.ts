/**
 * The sandbox's builder (spec 02: collections, interactions, the default
 * template), served on the sandbox's own address in place of {builder_url},
 * plus its control routes under /_sandbox. One call registers it all.
 */
import type { FastifyInstance } from 'fastify';
import type { SandboxContext } from '../context.ts';
import { COLLECTION_PREFIXES, registerCollectionRoutes } from './collection-routes.ts';
import { registerBuilderControlRoutes } from './control-routes.ts';
import { registerLegacyInteractionRoutes } from './legacy-interaction-routes.ts';
import { registerV2InteractionRoutes } from './v2-interaction-routes.ts';

export async function registerBuilder(app: FastifyInstance, ctx: SandboxContext): Promise<void> {
  for (const prefix of COLLECTION_PREFIXES) registerCollectionRoutes(app, ctx, prefix);
  registerLegacyInteractionRoutes(app, ctx);
  await app.register(async (scope) => registerV2InteractionRoutes(scope, ctx), {
    prefix: '/api/v2/orgs/:organization_id/interactions',
  });
  await app.register(async (scope) => registerBuilderControlRoutes(scope, ctx), { prefix: '/_sandbox' });
}
