/**
 * Live stream inputs of channels, as the streaming provider would keep them:
 * one input per channel (created on first request, returned afterwards), the
 * streamer's connection, viewers and recordings. The control API plays the
 * provider (control-routes.ts); the public endpoints read the status.
 *
 * Status: is_connected from the streamer's connect until disconnect;
 * is_watchable once `bufferSeconds` of the sandbox clock have passed since
 * connecting; seconds_until_watchable counts down to that moment (0 when
 * watchable or not connected). Viewer count: distinct visitor IDs seen in
 * the last 2 minutes of the sandbox clock.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { StreamStatus, StreamViewerCount } from '../../platform/schemas/channel-messaging.ts';
import type { ChannelRecord, LiveStreamRecord, RecordedStreamRecord } from './model.ts';
import type { ChannelMessagingStore } from './store.ts';

export const DEFAULT_BUFFER_SECONDS = 10;
export const VIEWER_WINDOW_MS = 2 * 60 * 1000;

const providerUid = (): string => randomUUID().replaceAll('-', '');

/** The channel's input, created when it has none; `created` tells which. */
export function createOrGetStream(store: ChannelMessagingStore, channel: ChannelRecord): { stream: LiveStreamRecord; created: boolean } {
  const existing = store.streamsByChannel.get(channel.id);
  if (existing !== undefined) return { stream: existing, created: false };
  const stream: LiveStreamRecord = {
    uid: providerUid(),
    seq: store.nextSeq(),
    channelId: channel.id,
    organizationId: channel.organizationId,
    streamKey: randomBytes(24).toString('hex'),
    createdAt: store.now(),
    connectedAt: null,
    bufferSeconds: DEFAULT_BUFFER_SECONDS,
    viewers: new Map(),
  };
  store.streamsByChannel.set(channel.id, stream);
  return { stream, created: true };
}

export function streamStatus(store: ChannelMessagingStore, stream: LiveStreamRecord | undefined): StreamStatus {
  if (stream === undefined || stream.connectedAt === null) {
    return { is_connected: false, is_watchable: false, seconds_until_watchable: 0 };
  }
  const remainingMs = stream.connectedAt + stream.bufferSeconds * 1000 - store.now();
  return {
    is_connected: true,
    is_watchable: remainingMs <= 0,
    seconds_until_watchable: Math.max(0, Math.ceil(remainingMs / 1000)),
  };
}

export function viewerCount(store: ChannelMessagingStore, stream: LiveStreamRecord | undefined): StreamViewerCount {
  if (stream === undefined) return { viewer_count: 0 };
  const now = store.now();
  let count = 0;
  for (const seenAt of stream.viewers.values()) if (seenAt <= now && now - seenAt <= VIEWER_WINDOW_MS) count += 1;
  return { viewer_count: count };
}

export function connectStreamer(store: ChannelMessagingStore, stream: LiveStreamRecord, bufferSeconds: number): void {
  stream.connectedAt = store.now();
  stream.bufferSeconds = bufferSeconds;
}

export function disconnectStreamer(stream: LiveStreamRecord): void {
  stream.connectedAt = null;
}

export function seeViewers(store: ChannelMessagingStore, stream: LiveStreamRecord, visitorIds: readonly string[]): void {
  const now = store.now();
  for (const id of visitorIds) stream.viewers.set(id, now);
}

export interface NewRecording {
  name?: string | undefined;
  size?: number | undefined;
  duration?: number | undefined;
  width?: number | undefined;
  height?: number | undefined;
}

export function addRecording(store: ChannelMessagingStore, stream: LiveStreamRecord, input: NewRecording): RecordedStreamRecord {
  const now = store.now();
  const recording: RecordedStreamRecord = {
    uid: providerUid(),
    seq: store.nextSeq(),
    streamUid: stream.uid,
    channelId: stream.channelId,
    name: input.name ?? `Recording ${new Date(now).toISOString()}`,
    size: input.size ?? 0,
    duration: input.duration ?? -1,
    width: input.width ?? 1280,
    height: input.height ?? 720,
    createdAt: now,
    modifiedAt: now,
  };
  store.recordings.push(recording);
  return recording;
}
