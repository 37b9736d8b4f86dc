/**
 * The channel messaging store: channels, their members (each with its
 * notification settings), messages, notifications sent, live stream inputs
 * and recordings. It reads the sandbox clock and users from the shared
 * SandboxState and keeps everything else to itself.
 */
import { randomUUID } from 'node:crypto';
import { DEFAULT_NOTIFICATION_MODE } from '../../platform/schemas/channel-messaging.ts';
import type { SandboxState } from '../state.ts';
import type {
  ChannelMessageRecord,
  ChannelRecord,
  LiveStreamRecord,
  MemberRecord,
  NotificationRecord,
  RecordedStreamRecord,
} from './model.ts';

export type NewChannel = Pick<ChannelRecord, 'organizationId' | 'name' | 'description' | 'avatarUrl' | 'isPublic' | 'createdBy'> &
  Partial<Pick<ChannelRecord, 'isDirectMessage' | 'memberSetKey'>>;

export class ChannelMessagingStore {
  readonly sandbox: SandboxState;
  readonly channels = new Map<string, ChannelRecord>();
  readonly notifications: NotificationRecord[] = [];
  readonly streamsByChannel = new Map<string, LiveStreamRecord>();
  readonly recordings: RecordedStreamRecord[] = [];
  private readonly membersByChannel = new Map<string, MemberRecord[]>();
  private readonly messagesByChannel = new Map<string, ChannelMessageRecord[]>();
  private readonly messagesById = new Map<string, ChannelMessageRecord>();
  private readonly dmByMemberSet = new Map<string, ChannelRecord>();
  private seq = 0;

  constructor(sandbox: SandboxState) {
    this.sandbox = sandbox;
  }

  now(): number {
    return this.sandbox.now();
  }

  /** A number that grows with every record created: a stable tie-breaker for equal times. */
  nextSeq(): number {
    this.seq += 1;
    return this.seq;
  }

  addChannel(input: NewChannel): ChannelRecord {
    const now = this.now();
    const channel: ChannelRecord = {
      id: randomUUID(),
      seq: this.nextSeq(),
      isDirectMessage: false,
      memberSetKey: null,
      ...input,
      createdAt: now,
      updatedAt: now,
    };
    this.channels.set(channel.id, channel);
    this.membersByChannel.set(channel.id, []);
    this.messagesByChannel.set(channel.id, []);
    if (channel.memberSetKey !== null) this.dmByMemberSet.set(`${channel.organizationId}:${channel.memberSetKey}`, channel);
    return channel;
  }

  findDirectMessage(organizationId: string, memberSetKey: string): ChannelRecord | undefined {
    return this.dmByMemberSet.get(`${organizationId}:${memberSetKey}`);
  }

  /** Adds a member with notification settings in the starting mode (unmuted). */
  addMember(channel: ChannelRecord, userId: string, isAdmin: boolean): MemberRecord {
    const now = this.now();
    const member: MemberRecord = {
      id: randomUUID(),
      seq: this.nextSeq(),
      channelId: channel.id,
      organizationId: channel.organizationId,
      userId,
      isAdmin,
      lastSeenAt: null,
      createdAt: now,
      updatedAt: now,
      settings: { id: randomUUID(), mode: DEFAULT_NOTIFICATION_MODE, createdAt: now, updatedAt: now },
    };
    this.membersByChannel.get(channel.id)?.push(member);
    return member;
  }

  membersOf(channelId: string): readonly MemberRecord[] {
    return this.membersByChannel.get(channelId) ?? [];
  }

  memberOf(channelId: string, userId: string): MemberRecord | undefined {
    return this.membersOf(channelId).find((m) => m.userId === userId);
  }

  messagesOf(channelId: string): readonly ChannelMessageRecord[] {
    return this.messagesByChannel.get(channelId) ?? [];
  }

  message(id: string): ChannelMessageRecord | undefined {
    return this.messagesById.get(id);
  }

  addMessage(message: ChannelMessageRecord): void {
    this.messagesByChannel.get(message.channelId)?.push(message);
    this.messagesById.set(message.id, message);
  }

  /** The newest message of a channel (messages are appended in creation order). */
  latestMessage(channelId: string): ChannelMessageRecord | undefined {
    const list = this.messagesOf(channelId);
    return list[list.length - 1];
  }

  /** Messages of others created after the member last saw the channel. */
  unreadCount(member: MemberRecord): number {
    let count = 0;
    for (const message of this.messagesOf(member.channelId)) {
      if (message.senderId === member.userId) continue;
      if (member.lastSeenAt === null || message.createdAt > member.lastSeenAt) count += 1;
    }
    return count;
  }

  channelsOfUser(userId: string): ChannelRecord[] {
    return [...this.channels.values()].filter((c) => this.memberOf(c.id, userId) !== undefined);
  }
}
