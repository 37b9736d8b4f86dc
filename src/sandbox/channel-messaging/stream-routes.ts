/**
 * Live streams (spec 03): under /api/pub/v1/orgs/<organization_id>, the
 * channel's create-or-return of its input (201 when created, 200 after), its
 * recorded streams and the organization's inputs; and, without
 * authentication under /api/pub/public/v1/orgs/<organization_id>, a
 * channel's stream status and viewer count.
 *
 * Access: only a member of the channel may call create_stream (403 for a
 * caller who sees the channel without being a member): its answer carries the
 * stream key. The organization listing shows only the inputs of channels the
 * caller can see (public ones, private and direct-message ones they are a
 * member of), never a stream key.
 */
import type { FastifyInstance } from 'fastify';
import { NoPayload } from '../../platform/schemas/channel-messaging.ts';
import { SandboxNotFoundError } from '../errors.ts';
import { parsePayload } from '../http-errors.ts';
import { callerId, canSee, requireChannel, requireMembership } from './access.ts';
import type { ChannelParams, OrgParams } from './channel-routes.ts';
import { listPage, newestFirst } from './listing.ts';
import type { LiveStreamRecord, RecordedStreamRecord } from './model.ts';
import type { ChannelMessagingStore } from './store.ts';
import { createOrGetStream, streamStatus, viewerCount } from './streams.ts';
import { liveStreamInputView, recordedStreamView, RTMPS_URL, viewUrl } from './views.ts';

export function registerStreamRoutes(app: FastifyInstance, store: ChannelMessagingStore): void {
  app.post<{ Params: ChannelParams }>('/channels/:channel_id/conference/create_stream', async (request, reply) => {
    const userId = callerId(request);
    const channel = requireChannel(store, request.params.organization_id, request.params.channel_id, userId);
    parsePayload(NoPayload, request.body);
    requireMembership(store, channel, userId);
    const { stream, created } = createOrGetStream(store, channel);
    return reply.status(created ? 201 : 200).send({
      rtmps_url: RTMPS_URL,
      view_url: viewUrl(stream.uid),
      stream_key: stream.streamKey,
      stream_uid: stream.uid,
    });
  });

  app.get<{ Params: ChannelParams }>('/channels/:channel_id/conference/recorded_streams', async (request) => {
    const channel = requireChannel(store, request.params.organization_id, request.params.channel_id, callerId(request));
    const recordings = store.recordings.filter((r) => r.channelId === channel.id);
    const ordering = newestFirst<RecordedStreamRecord>('-created', (r) => r.createdAt, (r) => r.seq);
    return listPage(request, recordings, ordering, recordedStreamView);
  });

  app.get<{ Params: OrgParams }>('/conference/streams', async (request) => {
    const userId = callerId(request);
    const streams = [...store.streamsByChannel.values()].filter((s) => {
      const channel = store.channels.get(s.channelId);
      return s.organizationId === request.params.organization_id && channel !== undefined && canSee(store, channel, userId);
    });
    const ordering = newestFirst<LiveStreamRecord>('-created', (s) => s.createdAt, (s) => s.seq);
    return listPage(request, streams, ordering, (s) => liveStreamInputView(store, s));
  });
}

/** The public paths: no token; the channel must belong to the organization in the path. */
export function registerPublicStreamRoutes(app: FastifyInstance, store: ChannelMessagingStore): void {
  const streamOf = (params: ChannelParams) => {
    const channel = store.channels.get(params.channel_id);
    if (channel === undefined || channel.organizationId !== params.organization_id) {
      throw new SandboxNotFoundError('Channel not found.');
    }
    return store.streamsByChannel.get(channel.id);
  };

  app.get<{ Params: ChannelParams }>('/channels/:channel_id/conference/stream_status', async (request) =>
    streamStatus(store, streamOf(request.params)),
  );

  app.get<{ Params: ChannelParams }>('/channels/:channel_id/conference/stream_viewer_count', async (request) =>
    viewerCount(store, streamOf(request.params)),
  );
}
