/**
 * The users interface of spec 01 under /api/v5/users (no organization in the
 * path): the authenticated user, users by id, their preferences and avatar,
 * and the empty chat of a user. The scope's hook checks credentials (401) and
 * the subscription (403); access to the user (403) is `userForCaller`.
 */
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { CreateEmptyChatRequest } from '../../platform/schemas/chats.ts';
import {
  ReplaceUserPreferencesRequest,
  ReplaceUserRequest,
  UpdateUserPreferencesRequest,
  UpdateUserRequest,
} from '../../platform/schemas/users.ts';
import { callerOf } from '../auth.ts';
import { chatView } from '../chat-view.ts';
import { seedChat } from '../chat-seeding.ts';
import type { SandboxContext } from '../context.ts';
import { SandboxNotFoundError, SandboxValidationError } from '../errors.ts';
import { parsePayload } from '../http-errors.ts';
import type { User } from '../model.ts';
import { assertNotDeleted, replaceUser, updateUser, userForCaller } from '../users/accounts.ts';
import { acceptAnyMediaType, AVATAR_MAX_BYTES, avatarOf, avatarUrlFor, avatarView, uploadAvatar } from '../users/avatars.ts';
import { preferencesView, replacePreferences, updatePreferences } from '../users/preferences.ts';
import { userView } from '../users/user-view.ts';

interface UserParams {
  user_id: string;
}

export function registerUserRoutes(app: FastifyInstance, ctx: SandboxContext): void {
  const { state } = ctx;
  void app.register(multipart, { limits: { fileSize: AVATAR_MAX_BYTES } });

  app.get('/me', async (request) => {
    const caller = callerOf(state, request);
    const me = state.users.get(caller.userId);
    if (me === undefined) throw new SandboxNotFoundError('User not found.');
    return userView(state, me, avatarUrlFor(request));
  });

  app.get<{ Params: UserParams }>('/:user_id', async (request) =>
    userView(state, userForCaller(state, callerOf(state, request), request.params.user_id), avatarUrlFor(request)),
  );

  for (const method of ['PATCH', 'PUT'] as const) {
    app.route<{ Params: UserParams }>({
      method,
      url: '/:user_id',
      handler: async (request) => {
        const user = userForCaller(state, callerOf(state, request), request.params.user_id);
        const updated =
          method === 'PUT'
            ? replaceUser(state, user, parsePayload(ReplaceUserRequest, request.body))
            : updateUser(state, user, parsePayload(UpdateUserRequest, request.body));
        return userView(state, updated, avatarUrlFor(request));
      },
    });
  }

  /** The user of the path for preferences and avatar upload: a deleted one is 404 (before the body is checked). */
  const activeUserOf = (request: FastifyRequest<{ Params: UserParams }>): User => {
    const user = userForCaller(state, callerOf(state, request), request.params.user_id);
    assertNotDeleted(user);
    return user;
  };

  app.get<{ Params: UserParams }>('/:user_id/preferences', async (request) => preferencesView(state, activeUserOf(request)));
  app.patch<{ Params: UserParams }>('/:user_id/preferences', async (request) => {
    const user = activeUserOf(request);
    return updatePreferences(state, user, parsePayload(UpdateUserPreferencesRequest, request.body));
  });
  app.put<{ Params: UserParams }>('/:user_id/preferences', async (request) => {
    const user = activeUserOf(request);
    return replacePreferences(state, user, parsePayload(ReplaceUserPreferencesRequest, request.body));
  });

  app.get<{ Params: UserParams }>('/:user_id/avatar', async (request) => {
    const user = userForCaller(state, callerOf(state, request), request.params.user_id);
    const avatar = avatarOf(state, user);
    if (avatar === undefined) throw new SandboxNotFoundError('The user has no avatar.');
    return avatarView(avatar, avatarUrlFor(request));
  });
  void app.register(async (upload) => {
    acceptAnyMediaType(upload); // a non-multipart body is 400, not 415 (avatars.ts)
    upload.post<{ Params: UserParams }>('/:user_id/avatar', async (request, reply) => {
      const avatar = await uploadAvatar(state, activeUserOf(request), request);
      return reply.status(201).send(avatarView(avatar, avatarUrlFor(request)));
    });
  });

  /**
   * An empty chat (chat_type operator). Beyond messaging_channel the payload
   * is not shown: room_id picks the room (default: the organization's first
   * room); the answer is the Chat, 201 (docs/decisions/sandbox-chats.md).
   */
  app.post<{ Params: UserParams }>('/:user_id/chats', async (request, reply) => {
    const user = userForCaller(state, callerOf(state, request), request.params.user_id);
    const body = parsePayload(CreateEmptyChatRequest, request.body ?? {});
    const roomId = body.room_id;
    if (roomId !== undefined && typeof roomId !== 'string') throw SandboxValidationError.field('room_id', 'room_id must be a string (a room id).');
    const room = [...state.rooms.values()].find(
      (r) => r.organizationId === user.organizationId && (roomId === undefined || r.id === roomId),
    );
    if (room === undefined) throw SandboxValidationError.field('room_id', 'Room not found in the organization.');
    const chat = seedChat(state, {
      room,
      chatType: 'operator',
      messagingChannel: body.messaging_channel,
      waiting: false,
      encrypted: false,
      messages: [],
    });
    return reply.status(201).send(chatView(state, chat));
  });
}
