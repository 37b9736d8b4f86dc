/**
 * Channels, under /api/pub/v1/orgs/<organization_id>/channels (spec 03):
 * list (public channels and those the caller is a member of, direct messages
 * excluded), create (the caller becomes the first member and an admin), read,
 * and PUT/PATCH by a channel admin.
 */
import type { FastifyInstance } from 'fastify';
import type { Ordering } from '../pagination.ts';
import { SandboxForbiddenError } from '../errors.ts';
import { parsePayload } from '../http-errors.ts';
import { callerId, canSee, requireChannel, requireFieldUsers, requireMembership } from './access.ts';
import { listPage, newestFirst } from './listing.ts';
import type { ChannelRecord } from './model.ts';
import { CreateChannelBody, PatchChannelBody, ReplaceChannelBody } from './requests.ts';
import type { ChannelMessagingStore } from './store.ts';
import { channelView } from './views.ts';

export interface OrgParams {
  organization_id: string;
}
export interface ChannelParams extends OrgParams {
  channel_id: string;
}

/** The default ordering key is latest_message_created_at; a channel without messages counts from its creation. */
export function channelOrdering(store: ChannelMessagingStore): Ordering<ChannelRecord> {
  return newestFirst(
    '-latest_message_created_at',
    (c) => store.latestMessage(c.id)?.createdAt ?? c.createdAt,
    (c) => store.latestMessage(c.id)?.seq ?? c.seq,
  );
}

export function registerChannelRoutes(app: FastifyInstance, store: ChannelMessagingStore): void {
  app.get<{ Params: OrgParams }>('/channels', async (request) => {
    const userId = callerId(request);
    const visible = [...store.channels.values()].filter(
      (c) => c.organizationId === request.params.organization_id && !c.isDirectMessage && canSee(store, c, userId),
    );
    return listPage(request, visible, channelOrdering(store), (c) => channelView(store, c));
  });

  app.post<{ Params: OrgParams }>('/channels', async (request, reply) => {
    const userId = callerId(request);
    const organizationId = request.params.organization_id;
    const body = parsePayload(CreateChannelBody, request.body);
    const others = [...new Set(body.member_ids ?? [])].filter((id) => id !== userId);
    requireFieldUsers(store, organizationId, 'member_ids', body.member_ids ?? []);
    const channel = store.addChannel({
      organizationId,
      name: body.name,
      description: body.description ?? null,
      avatarUrl: body.avatar_url ?? null,
      isPublic: body.is_public ?? true,
      createdBy: userId,
    });
    store.addMember(channel, userId, true);
    for (const id of others) store.addMember(channel, id, false);
    return reply.status(201).send(channelView(store, channel));
  });

  app.get<{ Params: ChannelParams }>('/channels/:channel_id', async (request) => {
    const { organization_id, channel_id } = request.params;
    return channelView(store, requireChannel(store, organization_id, channel_id, callerId(request)));
  });

  for (const method of ['PUT', 'PATCH'] as const) {
    app.route<{ Params: ChannelParams }>({
      method,
      url: '/channels/:channel_id',
      handler: async (request) => {
        const userId = callerId(request);
        const channel = requireChannel(store, request.params.organization_id, request.params.channel_id, userId);
        const body = parsePayload(method === 'PUT' ? ReplaceChannelBody : PatchChannelBody, request.body);
        if (!requireMembership(store, channel, userId).isAdmin) {
          throw new SandboxForbiddenError('Only an admin of the channel may change it.');
        }
        const replace = method === 'PUT';
        if (body.name !== undefined) channel.name = body.name;
        if (body.description !== undefined || replace) channel.description = body.description ?? null;
        if (body.avatar_url !== undefined || replace) channel.avatarUrl = body.avatar_url ?? null;
        if (body.is_public !== undefined || replace) channel.isPublic = body.is_public ?? true;
        channel.updatedAt = store.now();
        return channelView(store, channel);
      },
    });
  }
}
