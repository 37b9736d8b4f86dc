/**
 * Users of an organization (spec 01) under /api/v5/orgs/<organization_id>/users:
 * list (ordering, is_deleted), create, read, PATCH/PUT, DELETE, preferences
 * and avatar. The scope's hooks check credentials, the organization, the
 * subscription and organization access; here: the users permission (not
 * needed to read, nor to manage one's own account) and 404 for users outside
 * the organization.
 */
import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import { CreateUserRequest, ReplaceUserRequest, UpdateUserRequest, UserListQuery } from '../../platform/schemas/users.ts';
import type { User } from '../../platform/schemas/users.ts';
import { callerOf } from '../auth.ts';
import type { SandboxContext } from '../context.ts';
import { SandboxNotFoundError } from '../errors.ts';
import { parsePayload } from '../http-errors.ts';
import { DEFAULT_PAGE_SIZE, paginate, pageUrl, type Ordering } from '../pagination.ts';
import { assertUsersPermission } from '../permissions.ts';
import { assertMayManage, createUser, deleteUser, replaceUser, updateUser, userOfOrganization } from '../users/accounts.ts';
import { acceptAnyMediaType, AVATAR_MAX_BYTES, avatarOf, avatarUrlFor, avatarView, uploadAvatar } from '../users/avatars.ts';
import { preferencesView } from '../users/preferences.ts';
import { userView } from '../users/user-view.ts';
import { registerUserClientRoutes } from './user-clients.ts';

interface OrgParams {
  organization_id: string;
}
interface OrgUserParams extends OrgParams {
  user_id: string;
}

function userOrdering(name: string | undefined): Ordering<User> {
  const ordering = name ?? 'created_at';
  const field = ordering.replace(/^-/, '') as 'created_at' | 'updated_at' | 'email';
  return {
    name: ordering,
    descending: ordering.startsWith('-'),
    keyOf: (user) => [field === 'email' ? (user.email ?? '') : Date.parse(user[field]), user.id],
  };
}

export function registerOrgUserRoutes(app: FastifyInstance, ctx: SandboxContext): void {
  const { state } = ctx;
  void app.register(multipart, { limits: { fileSize: AVATAR_MAX_BYTES } });
  registerUserClientRoutes(app, ctx);

  app.get<{ Params: OrgParams }>('/', async (request) => {
    const query = parsePayload(UserListQuery, request.query);
    const url = avatarUrlFor(request);
    const views = [...state.users.values()]
      .filter((u) => u.organizationId === request.params.organization_id)
      .map((u) => userView(state, u, url))
      .filter((u) => query.is_deleted === undefined || u.is_deleted === (query.is_deleted === 'true'))
      .filter((u) => query.is_manager === undefined || u.is_manager === (query.is_manager === 'true'));
    const { cursor, ...rest } = query;
    return paginate({
      items: views,
      ordering: userOrdering(query.ordering),
      cursor,
      pageSize: DEFAULT_PAGE_SIZE,
      linkFor: (next) => pageUrl(request, rest, next),
    });
  });

  app.post<{ Params: OrgParams }>('/', async (request, reply) => {
    assertUsersPermission(callerOf(state, request));
    const body = parsePayload(CreateUserRequest, request.body);
    const user = createUser(state, request.params.organization_id, body);
    // Spec 01 lists 200 for this create.
    return reply.status(200).send(userView(state, user, avatarUrlFor(request)));
  });

  app.get<{ Params: OrgUserParams }>('/:user_id', async (request) =>
    userView(state, userOfOrganization(state, request.params.organization_id, request.params.user_id), avatarUrlFor(request)),
  );

  for (const method of ['PATCH', 'PUT'] as const) {
    app.route<{ Params: OrgUserParams }>({
      method,
      url: '/:user_id',
      handler: async (request) => {
        assertMayManage(callerOf(state, request), request.params.user_id);
        const user = userOfOrganization(state, request.params.organization_id, request.params.user_id);
        const updated =
          method === 'PUT'
            ? replaceUser(state, user, parsePayload(ReplaceUserRequest, request.body))
            : updateUser(state, user, parsePayload(UpdateUserRequest, request.body));
        return userView(state, updated, avatarUrlFor(request));
      },
    });
  }

  app.delete<{ Params: OrgUserParams }>('/:user_id', async (request, reply) => {
    const caller = callerOf(state, request);
    assertUsersPermission(caller);
    deleteUser(state, caller, userOfOrganization(state, request.params.organization_id, request.params.user_id));
    return reply.status(204).send();
  });

  app.get<{ Params: OrgUserParams }>('/:user_id/preferences', async (request) => {
    assertMayManage(callerOf(state, request), request.params.user_id);
    return preferencesView(state, userOfOrganization(state, request.params.organization_id, request.params.user_id));
  });

  app.get<{ Params: OrgUserParams }>('/:user_id/avatar', async (request) => {
    assertMayManage(callerOf(state, request), request.params.user_id);
    const user = userOfOrganization(state, request.params.organization_id, request.params.user_id);
    const avatar = avatarOf(state, user);
    if (avatar === undefined) throw new SandboxNotFoundError('The user has no avatar.');
    return avatarView(avatar, avatarUrlFor(request));
  });

  void app.register(async (upload) => {
    acceptAnyMediaType(upload); // a non-multipart body is 400, not 415 (avatars.ts)
    upload.post<{ Params: OrgUserParams }>('/:user_id/avatar', async (request, reply) => {
      assertMayManage(callerOf(state, request), request.params.user_id);
      const user = userOfOrganization(state, request.params.organization_id, request.params.user_id);
      const avatar = await uploadAvatar(state, user, request);
      return reply.status(201).send(avatarView(avatar, avatarUrlFor(request)));
    });
  });
}
