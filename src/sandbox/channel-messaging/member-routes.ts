/**
 * Members of a channel and their notification settings, under
 * …/channels/<channel_id>/members (spec 03). Members are added to public
 * channels only (409 for private and direct-message channels), by an admin of
 * the channel only (403; the creator of a channel is its first admin). `member_id`
 * in a path is the member's user ID (or the member's own id). A member's
 * notification settings exist from the start in mode unmuted and move among
 * muted, mentions and unmuted by PATCH, by that member only.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { UpdateNotificationSettingsRequest } from '../../platform/schemas/channel-messaging.ts';
import { SandboxConflictError, SandboxForbiddenError, SandboxValidationError } from '../errors.ts';
import { parsePayload } from '../http-errors.ts';
import { callerId, requireChannel, requireFieldUsers, requireMember } from './access.ts';
import type { ChannelParams } from './channel-routes.ts';
import { listPage, oldestFirst } from './listing.ts';
import type { ChannelRecord, MemberRecord } from './model.ts';
import { AddMemberBody, UpdateMemberBody } from './requests.ts';
import type { ChannelMessagingStore } from './store.ts';
import { memberView, notificationSettingsView } from './views.ts';

interface MemberParams extends ChannelParams {
  member_id: string;
}

const isAdmin = (store: ChannelMessagingStore, channel: ChannelRecord, userId: string): boolean =>
  store.memberOf(channel.id, userId)?.isAdmin === true;

export function registerMemberRoutes(app: FastifyInstance, store: ChannelMessagingStore): void {
  const channelOf = (request: FastifyRequest<{ Params: ChannelParams }>) =>
    requireChannel(store, request.params.organization_id, request.params.channel_id, callerId(request));
  const memberOf = (request: FastifyRequest<{ Params: MemberParams }>): [ChannelRecord, MemberRecord] => {
    const channel = channelOf(request);
    return [channel, requireMember(store, channel, request.params.member_id)];
  };

  app.get<{ Params: ChannelParams }>('/channels/:channel_id/members', async (request) => {
    const channel = channelOf(request);
    const ordering = oldestFirst<MemberRecord>('created_at', (m) => m.createdAt, (m) => m.seq);
    return listPage(request, store.membersOf(channel.id), ordering, (m) => memberView(store, m));
  });

  app.post<{ Params: ChannelParams }>('/channels/:channel_id/members', async (request, reply) => {
    const userId = callerId(request);
    const channel = channelOf(request);
    const body = parsePayload(AddMemberBody, request.body);
    if (!channel.isPublic) {
      throw new SandboxConflictError(
        channel.isDirectMessage
          ? 'Members cannot be added to a direct-message channel.'
          : 'Members can be added to public channels only.',
      );
    }
    if (!isAdmin(store, channel, userId)) throw new SandboxForbiddenError('Only an admin of the channel may add members.');
    requireFieldUsers(store, channel.organizationId, 'member_id', [body.member_id]);
    if (store.memberOf(channel.id, body.member_id) !== undefined) {
      throw SandboxValidationError.field('member_id', 'This user is already a member of the channel.');
    }
    return reply.status(201).send(memberView(store, store.addMember(channel, body.member_id, body.is_admin ?? false)));
  });

  app.get<{ Params: MemberParams }>('/channels/:channel_id/members/:member_id', async (request) => {
    const [, member] = memberOf(request);
    return memberView(store, member);
  });

  app.patch<{ Params: MemberParams }>('/channels/:channel_id/members/:member_id', async (request) => {
    const userId = callerId(request);
    const [channel, member] = memberOf(request);
    const body = parsePayload(UpdateMemberBody, request.body);
    const admin = isAdmin(store, channel, userId);
    if (body.is_admin !== undefined && !admin) throw new SandboxForbiddenError('Only an admin of the channel may change is_admin.');
    if (body.last_seen_at !== undefined && !admin && member.userId !== userId) {
      throw new SandboxForbiddenError('Only the member or an admin of the channel may change last_seen_at.');
    }
    if (body.is_admin !== undefined) member.isAdmin = body.is_admin;
    if (body.last_seen_at !== undefined) member.lastSeenAt = Date.parse(body.last_seen_at);
    member.updatedAt = store.now();
    return memberView(store, member);
  });

  app.get<{ Params: MemberParams }>('/channels/:channel_id/members/:member_id/notification_settings', async (request) => {
    const [, member] = memberOf(request);
    return notificationSettingsView(member);
  });

  app.patch<{ Params: MemberParams }>('/channels/:channel_id/members/:member_id/notification_settings', async (request) => {
    const userId = callerId(request);
    const [, member] = memberOf(request);
    const body = parsePayload(UpdateNotificationSettingsRequest, request.body);
    if (member.userId !== userId) throw new SandboxForbiddenError('Only the member may change their notification settings.');
    member.settings.mode = body.mode;
    member.settings.updatedAt = store.now();
    return notificationSettingsView(member);
  });
}
