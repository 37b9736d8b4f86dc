/**
 * Messages of a channel, under …/channels/<channel_id>/messages (spec 03).
 * A message is written by a member (the caller) with a version 3 body whose
 * chunks are checked against the six documented types; versions 1 and 2 are
 * refused as deprecated. The client may choose the message's UUID. Creating a
 * message may notify members (notifications.ts) and marks the channel as
 * seen by its sender. Listing is newest first.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { CreateChannelMessageRequest } from '../../platform/schemas/channel-messaging.ts';
import { SandboxForbiddenError, SandboxNotFoundError, SandboxValidationError } from '../errors.ts';
import { parsePayload } from '../http-errors.ts';
import { callerId, requireChannel, requireMembership } from './access.ts';
import type { ChannelParams } from './channel-routes.ts';
import { listPage, newestFirst } from './listing.ts';
import type { ChannelMessageRecord, ChannelRecord } from './model.ts';
import { sendNotifications } from './notifications.ts';
import { UpdateMessageBody } from './requests.ts';
import type { ChannelMessagingStore } from './store.ts';
import { messageView } from './views.ts';

interface MessageParams extends ChannelParams {
  message_id: string;
}

function requireMessage(store: ChannelMessagingStore, channel: ChannelRecord, messageId: string): ChannelMessageRecord {
  const message = store.message(messageId);
  if (message === undefined || message.channelId !== channel.id) throw new SandboxNotFoundError('Message not found.');
  return message;
}

/** notify_users must name members of the channel (400 naming each item that does not). */
function requireMembers(store: ChannelMessagingStore, channel: ChannelRecord, userIds: readonly string[]): void {
  const errors: Record<string, string[]> = {};
  userIds.forEach((id, index) => {
    if (store.memberOf(channel.id, id) === undefined) errors[`notify_users.${index}`] = ['Not a member of this channel.'];
  });
  if (Object.keys(errors).length > 0) throw new SandboxValidationError(errors);
}

export function registerMessageRoutes(app: FastifyInstance, store: ChannelMessagingStore): void {
  const channelOf = (params: ChannelParams, userId: string) =>
    requireChannel(store, params.organization_id, params.channel_id, userId);

  app.get<{ Params: ChannelParams }>('/channels/:channel_id/messages', async (request) => {
    const channel = channelOf(request.params, callerId(request));
    const ordering = newestFirst<ChannelMessageRecord>('-created_at', (m) => m.createdAt, (m) => m.seq);
    return listPage(request, store.messagesOf(channel.id), ordering, messageView);
  });

  app.post<{ Params: ChannelParams }>('/channels/:channel_id/messages', async (request, reply) => {
    const userId = callerId(request);
    const channel = channelOf(request.params, userId);
    const input = parsePayload(CreateChannelMessageRequest, request.body);
    const sender = requireMembership(store, channel, userId);
    if (input.id !== undefined && store.message(input.id) !== undefined) {
      throw SandboxValidationError.field('id', 'A message with this id already exists.');
    }
    const notifyUsers = [...new Set(input.notify_users ?? [])];
    requireMembers(store, channel, notifyUsers);

    const now = store.now();
    const message: ChannelMessageRecord = {
      id: input.id ?? randomUUID(),
      seq: store.nextSeq(),
      channelId: channel.id,
      organizationId: channel.organizationId,
      senderId: userId,
      body: structuredClone(input.body),
      createdAt: now,
      updatedAt: now,
    };
    store.addMessage(message);
    sender.lastSeenAt = now;
    sendNotifications(store, message, { notifyUsers, notifyChannel: input.notify_channel ?? false });
    return reply.status(201).send(messageView(message));
  });

  app.get<{ Params: MessageParams }>('/channels/:channel_id/messages/:message_id', async (request) => {
    const channel = channelOf(request.params, callerId(request));
    return messageView(requireMessage(store, channel, request.params.message_id));
  });

  app.patch<{ Params: MessageParams }>('/channels/:channel_id/messages/:message_id', async (request) => {
    const userId = callerId(request);
    const channel = channelOf(request.params, userId);
    const message = requireMessage(store, channel, request.params.message_id);
    const input = parsePayload(UpdateMessageBody, request.body);
    if (message.senderId !== userId) throw new SandboxForbiddenError('Only the sender may change a message.');
    message.body = structuredClone(input.body);
    message.updatedAt = store.now();
    return messageView(message);
  });
}
