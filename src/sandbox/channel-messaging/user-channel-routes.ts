/**
 * Channels of one user, under /api/pub/v1/orgs/<organization_id>/users/<user_id>
 * (spec 03): the channels the user joined, and direct-message channels. A
 * direct-message channel exists once per member set: creating it again
 * returns the existing one (200 instead of 201). Its members are fixed at
 * creation (none can be added later, see member-routes.ts).
 *
 * Access: the path user's channels are shown only as far as the caller can
 * see them (`canSee`: public channels, and private and direct-message ones the
 * caller is a member of); any other is 404, as under /channels. Creating or
 * reopening a direct-message channel needs the caller in its member set (403).
 */
import type { FastifyInstance } from 'fastify';
import { SandboxForbiddenError, SandboxNotFoundError, SandboxValidationError } from '../errors.ts';
import { parsePayload } from '../http-errors.ts';
import { userOfOrganization } from '../users/accounts.ts';
import { callerId, canSee, requireFieldUsers } from './access.ts';
import { channelOrdering, type OrgParams } from './channel-routes.ts';
import { listPage } from './listing.ts';
import type { ChannelRecord } from './model.ts';
import { CreateDmChannelBody } from './requests.ts';
import type { ChannelMessagingStore } from './store.ts';
import { channelView } from './views.ts';

interface UserParams extends OrgParams {
  user_id: string;
}
interface JoinedParams extends UserParams {
  channel_id: string;
}
interface DmParams extends UserParams {
  dm_channel_id: string;
}

/** The channels the path user joined that the caller may see. */
function joinedChannels(store: ChannelMessagingStore, organizationId: string, userId: string, viewerId: string): ChannelRecord[] {
  return store.channelsOfUser(userId).filter((c) => c.organizationId === organizationId && canSee(store, c, viewerId));
}

export function registerUserChannelRoutes(app: FastifyInstance, store: ChannelMessagingStore): void {
  app.get<{ Params: UserParams }>('/users/:user_id/joined-channels', async (request) => {
    const { organization_id, user_id } = request.params;
    userOfOrganization(store.sandbox, organization_id, user_id);
    const channels = joinedChannels(store, organization_id, user_id, callerId(request));
    return listPage(request, channels, channelOrdering(store), (c) => channelView(store, c));
  });

  app.get<{ Params: JoinedParams }>('/users/:user_id/joined-channels/:channel_id', async (request) => {
    const { organization_id, user_id, channel_id } = request.params;
    userOfOrganization(store.sandbox, organization_id, user_id);
    const channel = joinedChannels(store, organization_id, user_id, callerId(request)).find((c) => c.id === channel_id);
    if (channel === undefined) throw new SandboxNotFoundError('The user has not joined this channel.');
    return channelView(store, channel);
  });

  app.get<{ Params: UserParams }>('/users/:user_id/dm-channels', async (request) => {
    const { organization_id, user_id } = request.params;
    userOfOrganization(store.sandbox, organization_id, user_id);
    const channels = joinedChannels(store, organization_id, user_id, callerId(request)).filter((c) => c.isDirectMessage);
    return listPage(request, channels, channelOrdering(store), (c) => channelView(store, c));
  });

  app.post<{ Params: UserParams }>('/users/:user_id/dm-channels', async (request, reply) => {
    const { organization_id, user_id } = request.params;
    const creator = callerId(request);
    userOfOrganization(store.sandbox, organization_id, user_id);
    const body = parsePayload(CreateDmChannelBody, request.body);
    requireFieldUsers(store, organization_id, 'member_ids', body.member_ids);
    const members = [...new Set([user_id, ...body.member_ids])].sort();
    if (members.length < 2) throw SandboxValidationError.field('member_ids', 'Name at least one member other than the user.');
    if (!members.includes(creator)) {
      throw new SandboxForbiddenError('You may only create or open a direct-message channel you are a member of (the path user or one of member_ids).');
    }

    const key = members.join(',');
    const existing = store.findDirectMessage(organization_id, key);
    if (existing !== undefined) return reply.status(200).send(channelView(store, existing));

    const channel = store.addChannel({
      organizationId: organization_id,
      name: null,
      description: null,
      avatarUrl: null,
      isPublic: false,
      isDirectMessage: true,
      memberSetKey: key,
      createdBy: creator,
    });
    for (const id of members) store.addMember(channel, id, false);
    return reply.status(201).send(channelView(store, channel));
  });

  app.get<{ Params: DmParams }>('/users/:user_id/dm-channels/:dm_channel_id', async (request) => {
    const { organization_id, user_id, dm_channel_id } = request.params;
    userOfOrganization(store.sandbox, organization_id, user_id);
    const channel = joinedChannels(store, organization_id, user_id, callerId(request)).find((c) => c.id === dm_channel_id && c.isDirectMessage);
    if (channel === undefined) throw new SandboxNotFoundError('Direct-message channel not found for this user.');
    return channelView(store, channel);
  });
}
