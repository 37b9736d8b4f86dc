/**
 * The chat listings of spec 01 under /api/v5/orgs/<organization_id>:
 * `rooms/<room_id>/chats` and `owned_chats` (paginated Chat, every documented
 * filter and ordering) and `rooms/<room_id>/decrypted-chats` (count plus
 * pages of decrypted chats, X-PRIVATE-KEY required). Authentication and
 * permissions are hooks of the scopes these are registered in (app.ts).
 */
import { createPublicKey } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  ChatListQuery,
  DECRYPTED_CHATS_PAGE_SIZE,
  DecryptedChatListQuery,
  PRIVATE_KEY_HEADER,
  type Chat,
} from '../../platform/schemas/chats.ts';
import type { Page } from '../../platform/schemas/pagination.ts';
import { parsePrivateKeyHeader } from '../chat-encryption.ts';
import { chatFilter, chatOrdering, createdAtRange } from '../chat-listing.ts';
import { chatView } from '../chat-view.ts';
import type { SandboxContext } from '../context.ts';
import { decryptedChatView } from '../decrypted-chat-view.ts';
import { SandboxBadRequestError, SandboxForbiddenError, SandboxNotFoundError } from '../errors.ts';
import { parsePayload } from '../http-errors.ts';
import type { ChatRecord, Room } from '../model.ts';
import { DEFAULT_PAGE_SIZE, paginate, pageUrl } from '../pagination.ts';
import type { SandboxState } from '../state.ts';

interface RoomParams {
  organization_id: string;
  room_id: string;
}

function requireRoom(state: SandboxState, params: RoomParams): Room {
  const room = state.rooms.get(params.room_id);
  if (room === undefined || room.organizationId !== params.organization_id) throw new SandboxNotFoundError('Room not found.');
  return room;
}

function listChats(state: SandboxState, request: FastifyRequest, chats: Iterable<ChatRecord>): Page<Chat> {
  const query = parsePayload(ChatListQuery, request.query);
  const selected = chatFilter(query);
  const views = [...chats].map((chat) => chatView(state, chat)).filter(selected);
  const { cursor, ...rest } = query;
  return paginate({
    items: views,
    ordering: chatOrdering<Chat>(query.ordering),
    cursor,
    pageSize: DEFAULT_PAGE_SIZE,
    linkFor: (next) => pageUrl(request, rest, next),
  });
}

const chatsOfOrganization = (state: SandboxState, organizationId: string) =>
  [...state.chats.values()].filter((chat) => chat.organizationId === organizationId);

/** GET owned_chats: registered in the owned_chats scope. */
export function registerOwnedChatListRoute(app: FastifyInstance, ctx: SandboxContext): void {
  app.get<{ Params: { organization_id: string } }>('/', async (request) =>
    listChats(ctx.state, request, chatsOfOrganization(ctx.state, request.params.organization_id)),
  );
}

/** GET rooms/<room_id>/chats and rooms/<room_id>/decrypted-chats: registered in the rooms scope. */
export function registerRoomChatRoutes(app: FastifyInstance, ctx: SandboxContext): void {
  const { state } = ctx;

  app.get<{ Params: RoomParams }>('/:room_id/chats', async (request) => {
    const room = requireRoom(state, request.params);
    return listChats(state, request, chatsOfOrganization(state, room.organizationId).filter((c) => c.roomId === room.id));
  });

  app.get<{ Params: RoomParams }>('/:room_id/decrypted-chats', async (request) => {
    const room = requireRoom(state, request.params);
    const publicKeyPem = state.organizations.get(room.organizationId)?.publicKeyPem;
    if (publicKeyPem === undefined) throw new SandboxForbiddenError('Encrypted chats are not enabled for this organization.');
    const query = parsePayload(DecryptedChatListQuery, request.query);
    // The key lives in this request only: never stored, never logged.
    const privateKey = parsePrivateKeyHeader(request.headers[PRIVATE_KEY_HEADER]);
    if (createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }).toString() !== publicKeyPem) {
      throw new SandboxBadRequestError("X-PRIVATE-KEY is not the organization's private key.");
    }
    const inRange = createdAtRange<ChatRecord & { created_at: string }>(query.created_at_after, query.created_at_before);
    const chats = chatsOfOrganization(state, room.organizationId)
      .filter((c) => c.roomId === room.id)
      .map((c) => ({ ...c, created_at: new Date(c.createdAt).toISOString() }))
      .filter((c) => inRange.every((check) => check(c)));
    const { cursor, ...rest } = query;
    const page = paginate({
      items: chats,
      ordering: chatOrdering<(typeof chats)[number]>(undefined),
      cursor,
      pageSize: query.limit === undefined ? DECRYPTED_CHATS_PAGE_SIZE : Number(query.limit),
      linkFor: (next) => pageUrl(request, rest, next),
    });
    return {
      count: chats.length,
      next: page.next,
      previous: page.previous,
      results: page.results.map((chat) => decryptedChatView(state, chat, privateKey)),
    };
  });
}
