/**
 * The control API's chat side, under /_sandbox/chats (no auth): it plays the
 * agent (messages with attachments, reply suggestions, ending in the agent
 * UI) and shows what the platform holds (chats by thread, every message,
 * visitor variables).
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { postAgentMessage, suggestReply } from '../agent-actions.ts';
import { chatView } from '../chat-view.ts';
import { seedChat } from '../chat-seeding.ts';
import { endChat, requireChat } from '../chats.ts';
import type { SandboxContext } from '../context.ts';
import { SandboxValidationError } from '../errors.ts';
import { parsePayload } from '../http-errors.ts';
import { ATTACHMENT_BODY_LIMIT, AttachmentInputs, attachmentViews, originOf } from '../message-files.ts';
import type { ChatRecord, MessageRecord } from '../model.ts';
import type { SandboxState } from '../state.ts';

const nonBlank = z.string().trim().min(1, { error: 'This field may not be blank.' });

const AgentMessageBody = z.strictObject({ text: nonBlank, sender_id: z.string().optional(), attachments: AttachmentInputs.optional() });
const ReplySuggestionBody = z.strictObject({
  suggestion: nonBlank,
  message_id: z.string().optional(),
  relevancy_score: z.number().min(0).max(1).nullable().optional(),
  user_id: z.string().optional(),
});
const ChatListQuery = z.strictObject({ thread_id: z.string().optional(), config_id: z.string().optional() });
const seedTime = z.iso.datetime({ offset: true, error: 'Enter an ISO 8601 date/time.' }).transform((v) => Date.parse(v));
const NewChatBody = z
  .strictObject({
    room_id: z.string().optional(),
    chat_type: z.enum(['visitor', 'operator', 'external']).default('visitor'),
    messaging_channel: nonBlank.optional(),
    created_at: seedTime.optional(),
    waiting: z.boolean().default(true),
    encrypted: z.boolean().default(false),
    messages: z
      .array(z.strictObject({ sender: z.enum(['visitor', 'user']), text: z.string(), user_id: z.string().optional(), created_at: seedTime.optional() }))
      .default([]),
    ended_at: seedTime.optional(),
  })
  .default({ chat_type: 'visitor', waiting: true, encrypted: false, messages: [] });

interface ChatParams {
  chat_id: string;
}

/** A chat with what links it to unified messaging and its visitor. */
function controlChatView(state: SandboxState, chat: ChatRecord) {
  const visitor = state.visitors.get(chat.visitorId);
  return {
    chat: chatView(state, chat),
    thread_id: chat.link?.threadId ?? null,
    channel_config_id: chat.link?.configId ?? null,
    mapping_id: chat.link?.mappingId ?? null,
    visitor: {
      id: chat.visitorId,
      external_sender_id: visitor?.externalSenderId ?? null,
      variables: visitor?.variables ?? {},
    },
  };
}

function controlMessageView(m: MessageRecord, origin: string) {
  return {
    id: m.id,
    type: m.type,
    sender_type: m.senderType,
    sender_id: m.senderId,
    sender_name: m.senderName,
    sender_public_name: m.senderPublicName,
    message: m.text,
    message_id: m.externalMessageId,
    external_sender_id: m.externalSenderId,
    selected_reply_suggestion_id: m.selectedReplySuggestionId,
    attachments: attachmentViews(m.attachments, origin),
    created_at: new Date(m.createdAt).toISOString(),
  };
}

export function registerControlChatRoutes(app: FastifyInstance, ctx: SandboxContext): void {
  const { state, seed } = ctx;

  /** Chats, newest first; filtered by thread and configuration. */
  app.get('/', async (request) => {
    const query = parsePayload(ChatListQuery, request.query);
    const chats = [...state.chats.values()]
      .reverse()
      .filter((c) => query.thread_id === undefined || c.link?.threadId === query.thread_id)
      .filter((c) => query.config_id === undefined || c.link?.configId === query.config_id)
      .sort((a, b) => b.createdAt - a.createdAt);
    return { results: chats.map((c) => controlChatView(state, c)) };
  });

  /**
   * A chat that did not come through unified messaging (it never fires
   * webhooks): a visitor chat by default, optionally seeded with messages at
   * given times, encrypted, ended (chat-seeding.ts).
   */
  app.post('/', async (request, reply) => {
    const body = parsePayload(NewChatBody, request.body);
    const room = state.rooms.get(body.room_id ?? seed.room.id);
    if (room === undefined) throw SandboxValidationError.field('room_id', 'Room not found.');
    const chat = seedChat(state, {
      room,
      chatType: body.chat_type,
      messagingChannel: body.messaging_channel,
      createdAt: body.created_at,
      waiting: body.waiting && body.chat_type !== 'operator',
      encrypted: body.encrypted,
      messages: body.messages.map((m) => ({ sender: m.sender, text: m.text, userId: m.user_id, at: m.created_at })),
      endedAt: body.ended_at,
    });
    return reply.status(201).send(controlChatView(state, chat));
  });

  app.get<{ Params: ChatParams }>('/:chat_id', async (request) =>
    controlChatView(state, requireChat(state, request.params.chat_id)),
  );

  /** Forgets the chat as a data-retention purge would; its thread mapping keeps pointing at it. */
  app.delete<{ Params: ChatParams }>('/:chat_id', async (request, reply) => {
    state.purgeChat(requireChat(state, request.params.chat_id).id);
    return reply.status(204).send();
  });

  app.get<{ Params: ChatParams }>('/:chat_id/messages', async (request) => {
    const chat = requireChat(state, request.params.chat_id);
    return { results: state.messagesOf(chat.id).map((m) => controlMessageView(m, originOf(request))) };
  });

  /** An agent's message, with files and images attached as `{type, name?, content_type?, content_base64}` (message-files.ts). */
  app.post<{ Params: ChatParams }>('/:chat_id/agent_messages', { bodyLimit: ATTACHMENT_BODY_LIMIT }, async (request, reply) => {
    const chat = requireChat(state, request.params.chat_id);
    const body = parsePayload(AgentMessageBody, request.body);
    const input = { text: body.text, senderId: body.sender_id, attachments: body.attachments, origin: originOf(request) };
    return reply.status(201).send(postAgentMessage(ctx, chat, input));
  });

  app.post<{ Params: ChatParams }>('/:chat_id/reply_suggestions', async (request, reply) => {
    const chat = requireChat(state, request.params.chat_id);
    const body = parsePayload(ReplySuggestionBody, request.body);
    const suggestion = suggestReply(ctx, chat, {
      suggestion: body.suggestion,
      messageId: body.message_id,
      relevancyScore: body.relevancy_score,
      userId: body.user_id,
    });
    return reply.status(201).send(suggestion);
  });

  /** Ending the chat as an agent would in the agent UI. */
  app.post<{ Params: ChatParams }>('/:chat_id/end', async (request) => {
    const chat = requireChat(state, request.params.chat_id);
    return chatView(state, endChat(state, chat));
  });
}
