/**
 * Channel messaging of the sandbox (spec 03, first half): one store and the
 * routes over it — the authenticated API under /api/pub/v1/orgs/<id>, the
 * public live stream status under /api/pub/public/v1/orgs/<id>, and the
 * control API under /_sandbox/channel_messaging.
 */
import type { FastifyInstance } from 'fastify';
import type { SandboxContext } from '../context.ts';
import { requireCaller } from './access.ts';
import { registerChannelRoutes } from './channel-routes.ts';
import { registerChannelControlRoutes } from './control-routes.ts';
import { registerMemberRoutes } from './member-routes.ts';
import { registerMessageRoutes } from './message-routes.ts';
import { ChannelMessagingStore } from './store.ts';
import { registerPublicStreamRoutes, registerStreamRoutes } from './stream-routes.ts';
import { registerUserChannelRoutes } from './user-channel-routes.ts';

export { ChannelMessagingStore } from './store.ts';

export function registerChannelMessaging(app: FastifyInstance, ctx: SandboxContext): ChannelMessagingStore {
  const store = new ChannelMessagingStore(ctx.state);
  void app.register(
    async (scope) => {
      scope.addHook('onRequest', requireCaller(store));
      registerChannelRoutes(scope, store);
      registerUserChannelRoutes(scope, store);
      registerMessageRoutes(scope, store);
      registerMemberRoutes(scope, store);
      registerStreamRoutes(scope, store);
    },
    { prefix: '/api/pub/v1/orgs/:organization_id' },
  );
  void app.register(async (scope) => registerPublicStreamRoutes(scope, store), {
    prefix: '/api/pub/public/v1/orgs/:organization_id',
  });
  void app.register(async (scope) => registerChannelControlRoutes(scope, store, ctx.seed.organization.id), {
    prefix: '/_sandbox/channel_messaging',
  });
  return store;
}
