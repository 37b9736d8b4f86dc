/**
 * User clients (spec 01) under /api/v5/orgs/<organization_id>/users/<user_id>/clients:
 * register (201), refresh with PUT or PATCH (re-registers an expired or
 * unknown client), unregister (204, presence ends at once), list (paginated).
 * Registered in the organization users scope, whose hooks check credentials,
 * organization and subscription; a user manages their own clients without
 * the users permission.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { UserClientRequest, type UserClient } from '../../platform/schemas/users.ts';
import { callerOf } from '../auth.ts';
import type { SandboxContext } from '../context.ts';
import { SandboxNotFoundError } from '../errors.ts';
import { parsePayload } from '../http-errors.ts';
import type { User } from '../model.ts';
import { DEFAULT_PAGE_SIZE, paginate, pageUrl } from '../pagination.ts';
import { assertMayManage, assertNotDeleted, userOfOrganization } from '../users/accounts.ts';
import { clientsOf, clientView, refreshClient, registerClient } from '../users/presence.ts';

interface UserParams {
  organization_id: string;
  user_id: string;
}
interface ClientParams extends UserParams {
  client_id: string;
}

const ClientListQuery = z.strictObject({ cursor: z.string().min(1).optional() });

export function registerUserClientRoutes(app: FastifyInstance, ctx: SandboxContext): void {
  const { state } = ctx;

  /** The permitted, existing, not deleted user of the path. */
  const userOf = (request: FastifyRequest<{ Params: UserParams }>): User => {
    assertMayManage(callerOf(state, request), request.params.user_id);
    const user = userOfOrganization(state, request.params.organization_id, request.params.user_id);
    assertNotDeleted(user);
    return user;
  };

  app.post<{ Params: UserParams }>('/:user_id/clients', async (request, reply) => {
    const user = userOf(request);
    const client = registerClient(state, user.id, parsePayload(UserClientRequest, request.body));
    return reply.status(201).send(clientView(state, client));
  });

  app.get<{ Params: UserParams }>('/:user_id/clients', async (request) => {
    const user = userOf(request);
    const query = parsePayload(ClientListQuery, request.query);
    return paginate<UserClient>({
      items: clientsOf(state, user.id).map((c) => clientView(state, c)),
      ordering: { name: 'created_at', descending: false, keyOf: (c) => [Date.parse(c.created_at), c.id] },
      cursor: query.cursor,
      pageSize: DEFAULT_PAGE_SIZE,
      linkFor: (next) => pageUrl(request, {}, next),
    });
  });

  for (const method of ['PATCH', 'PUT'] as const) {
    app.route<{ Params: ClientParams }>({
      method,
      url: '/:user_id/clients/:client_id',
      handler: async (request) => {
        const user = userOf(request);
        if (!z.uuid().safeParse(request.params.client_id).success) throw new SandboxNotFoundError('User client not found.');
        const body = parsePayload(UserClientRequest, request.body);
        return clientView(state, refreshClient(state, user.id, request.params.client_id, body));
      },
    });
  }

  app.delete<{ Params: ClientParams }>('/:user_id/clients/:client_id', async (request, reply) => {
    const user = userOf(request);
    const client = state.userClients.get(request.params.client_id);
    if (client === undefined || client.userId !== user.id) throw new SandboxNotFoundError('User client not found.');
    state.userClients.delete(client.id);
    return reply.status(204).send();
  });
}
