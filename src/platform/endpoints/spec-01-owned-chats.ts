/**
 * The two owned-chat endpoints of spec 01 the bridge calls (a chat read, a
 * chat ended), as data: listed with the other chat endpoints in spec-01.ts,
 * and apart so that the bridge's unified messaging client loads their
 * schemas alone, not every endpoint's (docs/decisions/footprint.md).
 */
import { Chat, EndChatRequest } from '../schemas/chats.ts';
import type { EndpointSpec } from './types.ts';

export const CHATS = '01 Chats';

export const OWNED_CHAT_CALLS = [
  {
    id: 'getOwnedChat', method: 'GET', path: '/api/v5/orgs/<organization_id>/owned_chats/<chat_id>', upstream: 'api', source: CHATS,
    summary: 'One chat of a room the organization owns.', response: Chat,
  },
  {
    id: 'endOwnedChat', method: 'PATCH', path: '/api/v5/orgs/<organization_id>/owned_chats/<chat_id>', upstream: 'api', source: CHATS,
    summary: 'End the chat (is_ended true); it is locked permanently.', body: EndChatRequest, response: Chat,
  },
] as const satisfies readonly EndpointSpec[];
