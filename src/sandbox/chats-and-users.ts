/**
 * Registration of the spec 01 chats and users families (besides owned_chats,
 * whose scope app.ts already has): room chat listings, users under
 * /api/v5/users and /api/v5/orgs/<organization_id>/users, avatar files, and
 * the control API's directory routes. Each scope declares its checks as hooks:
 * requireAccess (credentials, organization) then the spec 01 permissions.
 */
import type { FastifyInstance } from 'fastify';
import { requireAccess } from './auth.ts';
import type { SandboxContext } from './context.ts';
import { SandboxNotFoundError } from './errors.ts';
import { requireOrganizationPermissions, requireSubscription } from './permissions.ts';
import { registerRoomChatRoutes } from './routes/chat-listings.ts';
import { registerControlDirectoryRoutes } from './routes/control-directory.ts';
import { registerOrgUserRoutes } from './routes/org-users.ts';
import { registerUserRoutes } from './routes/users.ts';
import { AVATAR_PATH } from './users/avatars.ts';

const ORG_PATH = '/api/v5/orgs/:organization_id';

export function registerChatsAndUsers(app: FastifyInstance, ctx: SandboxContext): void {
  const { state } = ctx;
  void app.register(
    async (scope) => {
      scope.addHook('onRequest', requireAccess(state));
      scope.addHook('onRequest', requireOrganizationPermissions(state, { reports: 'always' }));
      registerRoomChatRoutes(scope, ctx);
    },
    { prefix: `${ORG_PATH}/rooms` },
  );
  void app.register(
    async (scope) => {
      scope.addHook('onRequest', requireAccess(state));
      scope.addHook('onRequest', requireOrganizationPermissions(state));
      registerOrgUserRoutes(scope, ctx);
    },
    { prefix: `${ORG_PATH}/users` },
  );
  void app.register(
    async (scope) => {
      scope.addHook('onRequest', requireSubscription(state));
      registerUserRoutes(scope, ctx);
    },
    { prefix: '/api/v5/users' },
  );
  // Avatar files, public like a hosting location.
  app.get<{ Params: { avatar_id: string } }>(`${AVATAR_PATH}/:avatar_id`, async (request, reply) => {
    const avatar = state.avatars.get(request.params.avatar_id);
    if (avatar === undefined) throw new SandboxNotFoundError('Avatar not found.');
    return reply.header('content-type', avatar.contentType).header('cache-control', 'no-cache').send(avatar.bytes);
  });
  void app.register(async (scope) => registerControlDirectoryRoutes(scope, ctx), { prefix: '/_sandbox' });
}
