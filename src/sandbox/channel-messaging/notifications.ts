/**
 * Push notifications of a new message (spec 03): notify_users names users,
 * notify_channel addresses every member, and each member's notification mode
 * decides — muted: never; mentions: only when named in notify_users;
 * unmuted: when named or when the whole channel is notified. The sender is
 * never notified of their own message; notify_teams is accepted and ignored
 * (teams do not exist yet).
 */
import { randomUUID } from 'node:crypto';
import type { ChannelMessageRecord, MemberRecord, NotificationReason, NotificationRecord } from './model.ts';
import type { ChannelMessagingStore } from './store.ts';

export interface NotifyRequest {
  notifyUsers: readonly string[];
  notifyChannel: boolean;
}

/** Why `member` is notified of a message, or null when their mode keeps them quiet. */
function reasonFor(member: MemberRecord, request: NotifyRequest): NotificationReason | null {
  const named = request.notifyUsers.includes(member.userId);
  switch (member.settings.mode) {
    case 'muted':
      return null;
    case 'mentions':
      return named ? 'mention' : null;
    case 'unmuted':
      return named ? 'mention' : request.notifyChannel ? 'channel' : null;
  }
}

/** Records (sends) the notifications of a new message; returns them. */
export function sendNotifications(
  store: ChannelMessagingStore,
  message: ChannelMessageRecord,
  request: NotifyRequest,
): NotificationRecord[] {
  const sent: NotificationRecord[] = [];
  for (const member of store.membersOf(message.channelId)) {
    if (member.userId === message.senderId) continue;
    const reason = reasonFor(member, request);
    if (reason === null) continue;
    sent.push({
      id: randomUUID(),
      organizationId: message.organizationId,
      channelId: message.channelId,
      messageId: message.id,
      userId: member.userId,
      reason,
      mode: member.settings.mode,
      createdAt: message.createdAt,
    });
  }
  store.notifications.push(...sent);
  return sent;
}
