/**
 * One owned chat, under /api/v5/orgs/<organization_id>/owned_chats (spec 01):
 * read it, or end it with PATCH or PUT `{"is_ended": true}`. Ending an ended
 * chat answers 200 and changes nothing. A chat of another organization is
 * "not found".
 */
import type { FastifyInstance } from 'fastify';
import { EndChatRequest } from '../../platform/schemas/chats.ts';
import { chatView } from '../chat-view.ts';
import { endChat, requireChat } from '../chats.ts';
import type { SandboxContext } from '../context.ts';
import { parsePayload } from '../http-errors.ts';

interface ChatParams {
  organization_id: string;
  chat_id: string;
}

export function registerOwnedChatRoutes(app: FastifyInstance, ctx: SandboxContext): void {
  const { state } = ctx;

  app.get<{ Params: ChatParams }>('/:chat_id', async (request) => {
    const chat = requireChat(state, request.params.chat_id, request.params.organization_id);
    return chatView(state, chat);
  });

  for (const method of ['PATCH', 'PUT'] as const) {
    app.route<{ Params: ChatParams }>({
      method,
      url: '/:chat_id',
      handler: async (request) => {
        const chat = requireChat(state, request.params.chat_id, request.params.organization_id);
        parsePayload(EndChatRequest, request.body);
        return chatView(state, endChat(state, chat));
      },
    });
  }
}
