/**
 * Live streams of channel messaging (spec 03): create-or-return of a
 * channel's input, the organization's inputs, recorded streams, and the
 * public status (is_connected, then is_watchable after
 * seconds_until_watchable) and viewer count over the last 2 minutes — with
 * the control API playing the streaming provider and the sandbox clock
 * standing in for waiting.
 */
import { describe, expect, it } from 'vitest';
import {
  Collection,
  LiveStreamInput,
  LiveStreamInputCreated,
  RecordedStream,
  StreamStatus,
  StreamViewerCount,
} from '../../src/platform/schemas/channel-messaging.ts';
import { startChannelSandbox, type ChannelSandbox } from './channel-support.ts';

const control = (channelId: string, action: string) => `/_sandbox/channel_messaging/channels/${channelId}/stream/${action}`;

async function status(sb: ChannelSandbox, channelId: string) {
  const res = await sb.call('GET', `${sb.pub}/channels/${channelId}/conference/stream_status`, undefined, { authorization: null });
  expect(res.status).toBe(200);
  return StreamStatus.parse(res.body);
}

async function viewers(sb: ChannelSandbox, channelId: string): Promise<number> {
  const res = await sb.call('GET', `${sb.pub}/channels/${channelId}/conference/stream_viewer_count`, undefined, { authorization: null });
  expect(res.status).toBe(200);
  return StreamViewerCount.parse(res.body).viewer_count;
}

describe('live stream inputs', () => {
  it('create_stream creates the input once (201) and returns the same one afterwards (200)', async () => {
    const sb = await startChannelSandbox();
    const ch = await sb.createChannel({ name: 'town hall' });
    const path = `${sb.cm}/channels/${ch.id}/conference/create_stream`;
    const first = await sb.call('POST', path);
    expect(first.status).toBe(201);
    const input = LiveStreamInputCreated.parse(first.body);
    expect(input.rtmps_url).toMatch(/^rtmps:\/\//);
    expect(input.view_url).toContain(input.stream_uid);
    expect(input.stream_key.length).toBeGreaterThanOrEqual(32);
    const again = await sb.call('POST', path, {});
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    const withPayload = await sb.call('POST', path, { name: 'x' });
    expect(withPayload.status).toBe(400);
    expect(withPayload.body.errors.name).toBeDefined();
    expect((await sb.call('POST', `${sb.cm}/channels/${crypto.randomUUID()}/conference/create_stream`)).status).toBe(404);
  });

  it('lists the organization\'s inputs with channel name, never the stream key', async () => {
    const sb = await startChannelSandbox();
    const a = await sb.createChannel({ name: 'a' });
    const b = await sb.createChannel({ name: 'b' });
    const sa = (await sb.call('POST', `${sb.cm}/channels/${a.id}/conference/create_stream`)).body;
    await sb.advanceSeconds(1);
    const sbb = (await sb.call('POST', `${sb.cm}/channels/${b.id}/conference/create_stream`)).body;
    const res = await sb.call('GET', `${sb.cm}/conference/streams`);
    expect(res.status).toBe(200);
    expect(Collection(LiveStreamInput).parse(res.body)).toMatchObject({
      next: null,
      previous: null,
      results: [
        { channel: b.id, channel_name: 'b', uid: sbb.stream_uid, view_url: sbb.view_url, rtmps_url: sbb.rtmps_url },
        { channel: a.id, channel_name: 'a', uid: sa.stream_uid },
      ],
    });
    for (const item of res.body.results) {
      expect(item).not.toHaveProperty('stream_key');
      expect(Date.parse(item.created)).not.toBeNaN();
    }
    expect((await sb.call('GET', `${sb.cm}/conference/streams`, undefined, { authorization: null })).status).toBe(401);
  });

  it('create_stream (and so the stream key) is for members only (403); others see no key', async () => {
    const sb = await startChannelSandbox();
    const bob = await sb.addUser('Bob');
    const eve = await sb.addUser('Eve');
    const ch = await sb.createChannel({ name: 'town hall', member_ids: [bob.id] });
    const path = `${sb.cm}/channels/${ch.id}/conference/create_stream`;
    // A non-member who sees the public channel may not create its input…
    const before = await eve.call('POST', path);
    expect(before.status).toBe(403);
    expect(before.body.detail).toMatch(/member/);
    expect((await sb.call('GET', `${sb.cm}/conference/streams`)).body.results).toEqual([]);
    // …nor read its key once it exists.
    const created = await sb.call('POST', path);
    expect(created.status).toBe(201);
    const after = await eve.call('POST', path);
    expect(after.status).toBe(403);
    expect(JSON.stringify(after.body)).not.toContain(created.body.stream_key);
    // A plain member (not an admin) may.
    const fromBob = await bob.call('POST', path);
    expect(fromBob.status).toBe(200);
    expect(fromBob.body.stream_key).toBe(created.body.stream_key);
    // A private channel stays 404 for non-members.
    const secret = await sb.createChannel({ name: 'secret', is_public: false });
    expect((await eve.call('POST', `${sb.cm}/channels/${secret.id}/conference/create_stream`)).status).toBe(404);
  });

  it('lists to each caller only the inputs of channels they can see', async () => {
    const sb = await startChannelSandbox();
    const bob = await sb.addUser('Bob');
    const eve = await sb.addUser('Eve');
    const open = await sb.createChannel({ name: 'open' });
    const secret = await sb.createChannel({ name: 'secret', is_public: false, member_ids: [bob.id] });
    const dm = (await sb.call('POST', `${sb.cm}/users/${sb.agentId}/dm-channels`, { member_ids: [bob.id] })).body;
    for (const id of [open.id, secret.id, dm.id]) {
      expect((await sb.call('POST', `${sb.cm}/channels/${id}/conference/create_stream`)).status).toBe(201);
      await sb.advanceSeconds(1);
    }
    const channelsSeenBy = async (caller?: typeof bob) => {
      const res = caller ? await caller.call('GET', `${sb.cm}/conference/streams`) : await sb.call('GET', `${sb.cm}/conference/streams`);
      expect(res.status).toBe(200);
      for (const item of res.body.results) expect(item).not.toHaveProperty('stream_key');
      return res.body.results.map((s: { channel: string }) => s.channel);
    };
    expect(await channelsSeenBy(eve)).toEqual([open.id]);
    expect(await channelsSeenBy(bob)).toEqual([dm.id, secret.id, open.id]);
    expect(await channelsSeenBy()).toEqual([dm.id, secret.id, open.id]);
  });

  it('lists recorded streams of the channel, newest first; duration -1 until known', async () => {
    const sb = await startChannelSandbox();
    const ch = await sb.createChannel();
    const other = await sb.createChannel({ name: 'other' });
    const path = `${sb.cm}/channels/${ch.id}/conference/recorded_streams`;
    expect((await sb.call('GET', path)).body.results).toEqual([]);
    expect((await sb.call('POST', control(ch.id, 'recordings'), { name: 'early' })).status).toBe(409);
    await sb.call('POST', `${sb.cm}/channels/${ch.id}/conference/create_stream`);
    await sb.call('POST', `${sb.cm}/channels/${other.id}/conference/create_stream`);
    const early = await sb.call('POST', control(ch.id, 'recordings'), { name: 'Monday' });
    expect(early.status).toBe(201);
    await sb.advanceSeconds(60);
    await sb.call('POST', control(ch.id, 'recordings'), { name: 'Tuesday', duration: 93.5, size: 1048576, width: 1920, height: 1080 });
    await sb.call('POST', control(other.id, 'recordings'), { name: 'elsewhere' });
    const res = await sb.call('GET', path);
    expect(Collection(RecordedStream).parse(res.body)).toMatchObject({
      next: null,
      previous: null,
      results: [
        { meta: { name: 'Tuesday' }, duration: 93.5, size: 1048576, input: { width: 1920, height: 1080 } },
        { meta: { name: 'Monday' }, duration: -1 },
      ],
    });
    expect(res.body.results[0].playback.hls).toMatch(/\.m3u8$/);
    expect(res.body.results[0].playback.dash).toMatch(/\.mpd$/);
  });
});

describe('stream status and viewers (public)', () => {
  it('is_connected, then is_watchable once seconds_until_watchable have passed; disconnecting ends both', async () => {
    const sb = await startChannelSandbox();
    const ch = await sb.createChannel();
    expect(await status(sb, ch.id)).toEqual({ is_connected: false, is_watchable: false, seconds_until_watchable: 0 });
    await sb.call('POST', `${sb.cm}/channels/${ch.id}/conference/create_stream`);
    expect(await status(sb, ch.id)).toEqual({ is_connected: false, is_watchable: false, seconds_until_watchable: 0 });

    const connected = await sb.call('POST', control(ch.id, 'connect'), { buffer_seconds: 30 });
    expect(connected.status).toBe(200);
    expect(await status(sb, ch.id)).toEqual({ is_connected: true, is_watchable: false, seconds_until_watchable: 30 });
    await sb.advanceSeconds(20);
    expect(await status(sb, ch.id)).toMatchObject({ is_connected: true, is_watchable: false, seconds_until_watchable: 10 });
    await sb.advanceSeconds(10);
    expect(await status(sb, ch.id)).toEqual({ is_connected: true, is_watchable: true, seconds_until_watchable: 0 });

    await sb.call('POST', control(ch.id, 'disconnect'));
    expect(await status(sb, ch.id)).toEqual({ is_connected: false, is_watchable: false, seconds_until_watchable: 0 });
    // Reconnecting builds the buffer again (default 10 seconds).
    await sb.call('POST', control(ch.id, 'connect'));
    expect(await status(sb, ch.id)).toMatchObject({ is_connected: true, is_watchable: false, seconds_until_watchable: 10 });
  });

  it('counts distinct visitors seen watching in the last 2 minutes', async () => {
    const sb = await startChannelSandbox();
    const ch = await sb.createChannel();
    expect(await viewers(sb, ch.id)).toBe(0);
    await sb.call('POST', `${sb.cm}/channels/${ch.id}/conference/create_stream`);
    await sb.call('POST', control(ch.id, 'connect'), { buffer_seconds: 0 });
    const seen = await sb.call('POST', control(ch.id, 'viewers'), { visitor_ids: ['v1', 'v2', 'v2'] });
    expect(seen.body).toEqual({ viewer_count: 2 });
    expect(await viewers(sb, ch.id)).toBe(2);
    await sb.advanceSeconds(90);
    await sb.call('POST', control(ch.id, 'viewers'), { visitor_ids: ['v2', 'v3'] });
    expect(await viewers(sb, ch.id)).toBe(3);
    await sb.advanceSeconds(31); // v1 was last seen 121 s ago
    expect(await viewers(sb, ch.id)).toBe(2);
    await sb.advanceSeconds(90); // v2 and v3 last seen 121 s ago
    expect(await viewers(sb, ch.id)).toBe(0);
  });

  it('answers 404 for a channel unknown in the path\'s organization, needs no token', async () => {
    const sb = await startChannelSandbox();
    const info = await sb.info();
    const ch = await sb.createChannel();
    const foreign = `/api/pub/public/v1/orgs/${info.foreign_organization_id}/channels/${ch.id}/conference/stream_status`;
    expect((await sb.call('GET', foreign, undefined, { authorization: null })).status).toBe(404);
    const unknown = `${sb.pub}/channels/${crypto.randomUUID()}/conference/stream_viewer_count`;
    expect((await sb.call('GET', unknown, undefined, { authorization: null })).status).toBe(404);
  });

  it('control API: 404 for an unknown channel, 409 before create_stream, 400 for bad bodies', async () => {
    const sb = await startChannelSandbox();
    const ch = await sb.createChannel();
    expect((await sb.call('POST', control(crypto.randomUUID(), 'connect'))).status).toBe(404);
    expect((await sb.call('POST', control(ch.id, 'connect'))).status).toBe(409);
    await sb.call('POST', `${sb.cm}/channels/${ch.id}/conference/create_stream`);
    expect((await sb.call('POST', control(ch.id, 'connect'), { buffer_seconds: -1 })).body.errors.buffer_seconds).toBeDefined();
    expect((await sb.call('POST', control(ch.id, 'viewers'), { visitor_ids: [] })).status).toBe(400);
    expect((await sb.call('POST', control(ch.id, 'recordings'), { size: -5 })).body.errors.size).toBeDefined();
  });
});
