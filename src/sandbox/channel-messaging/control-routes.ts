/**
 * The control API of channel messaging, under /_sandbox/channel_messaging (no
 * auth): users with their own token (to act as another member), the push
 * notifications the platform would have sent, and the streaming provider's
 * side of a channel's live stream — the streamer connecting and
 * disconnecting, viewers watching, recordings becoming available.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { SandboxConflictError, SandboxNotFoundError } from '../errors.ts';
import { parsePayload } from '../http-errors.ts';
import { organizationFor } from '../routes/control-admin.ts';
import type { LiveStreamRecord } from './model.ts';
import type { ChannelMessagingStore } from './store.ts';
import { addRecording, connectStreamer, DEFAULT_BUFFER_SECONDS, disconnectStreamer, seeViewers, streamStatus, viewerCount } from './streams.ts';
import { notificationView, recordedStreamView } from './views.ts';

const UserBody = z.strictObject({
  name: z.string().trim().min(1, { error: 'This field may not be blank.' }),
  public_name: z.string().trim().min(1).optional(),
  organization_id: z.string().optional(),
});
const NotificationsQuery = z.strictObject({
  user_id: z.string().optional(),
  channel_id: z.string().optional(),
  message_id: z.string().optional(),
});
const ConnectBody = z.strictObject({ buffer_seconds: z.number().int().min(0).max(3600).optional() }).optional();
const ViewersBody = z.strictObject({ visitor_ids: z.array(z.string().min(1)).min(1) });
const RecordingBody = z
  .strictObject({
    name: z.string().min(1).optional(),
    size: z.number().int().min(0).optional(),
    /** Seconds; left out: -1 (unknown, the video is not ready yet). */
    duration: z.number().min(0).optional(),
    width: z.number().int().min(1).optional(),
    height: z.number().int().min(1).optional(),
  })
  .optional();

interface ChannelParams {
  channel_id: string;
}

export function registerChannelControlRoutes(app: FastifyInstance, store: ChannelMessagingStore, defaultOrganizationId: string): void {
  const { sandbox } = store;

  /** A user of an organization (default: the seeded one) with a token of their own, no scopes. */
  app.post('/users', async (request, reply) => {
    const body = parsePayload(UserBody, request.body);
    const organizationId = organizationFor(sandbox, body.organization_id, defaultOrganizationId).id;
    const user = sandbox.addUser(organizationId, body.name, body.public_name);
    const token = sandbox.issueToken(organizationId, user.id, []);
    return reply.status(201).send({
      id: user.id,
      organization_id: organizationId,
      name: user.name,
      public_name: user.publicName,
      token: token.token,
      token_type: 'Token',
    });
  });

  app.get('/notifications', async (request) => {
    const q = parsePayload(NotificationsQuery, request.query);
    const results = store.notifications.filter(
      (n) =>
        (q.user_id === undefined || n.userId === q.user_id) &&
        (q.channel_id === undefined || n.channelId === q.channel_id) &&
        (q.message_id === undefined || n.messageId === q.message_id),
    );
    return { results: results.map(notificationView) };
  });

  const streamOf = (params: ChannelParams): LiveStreamRecord => {
    if (!store.channels.has(params.channel_id)) throw new SandboxNotFoundError('Channel not found.');
    const stream = store.streamsByChannel.get(params.channel_id);
    if (stream === undefined) {
      throw new SandboxConflictError('The channel has no live stream input; create it with conference/create_stream first.');
    }
    return stream;
  };

  app.post<{ Params: ChannelParams }>('/channels/:channel_id/stream/connect', async (request) => {
    const stream = streamOf(request.params);
    const body = parsePayload(ConnectBody, request.body);
    connectStreamer(store, stream, body?.buffer_seconds ?? DEFAULT_BUFFER_SECONDS);
    return streamStatus(store, stream);
  });

  app.post<{ Params: ChannelParams }>('/channels/:channel_id/stream/disconnect', async (request) => {
    const stream = streamOf(request.params);
    disconnectStreamer(stream);
    return streamStatus(store, stream);
  });

  /** Visitors seen watching now (the sandbox clock); each counts for 2 minutes. */
  app.post<{ Params: ChannelParams }>('/channels/:channel_id/stream/viewers', async (request) => {
    const stream = streamOf(request.params);
    seeViewers(store, stream, parsePayload(ViewersBody, request.body).visitor_ids);
    return viewerCount(store, stream);
  });

  app.post<{ Params: ChannelParams }>('/channels/:channel_id/stream/recordings', async (request, reply) => {
    const stream = streamOf(request.params);
    const body = parsePayload(RecordingBody, request.body);
    return reply.status(201).send(recordedStreamView(addRecording(store, stream, body ?? {})));
  });
}
