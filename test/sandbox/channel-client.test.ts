/**
 * The typed client (`createPlatformClient`) pointed at the sandbox drives
 * every channel messaging endpoint of spec 03 — channels, joined and
 * direct-message channels, messages, members, notification settings, live
 * streams and the public stream status — with no special cases: every answer
 * parses with the endpoint's response schema, and errors arrive as
 * PlatformHttpError with the sandbox's status and detail.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { createPlatformClient, PlatformHttpError } from '../../src/platform/client.ts';
import { SPEC_03_ENDPOINTS } from '../../src/platform/endpoints/spec-03.ts';
import { startChannelSandbox, textBody } from './channel-support.ts';
import { platformClientFor } from './typed-client.ts';

const CHANNEL_MESSAGING_IDS = SPEC_03_ENDPOINTS.filter((e) => e.source.startsWith('03 Channel messaging')).map((e) => e.id);

describe('typed client against the sandbox: channel messaging', () => {
  it('exercises every channel messaging endpoint', async () => {
    const sb = await startChannelSandbox();
    const bob = await sb.addUser('Bob');
    const platform = platformClientFor(sb);
    const called = new Set<string>();
    const track = <T>(id: string, p: Promise<T>) => {
      called.add(id);
      return p;
    };

    // Channels
    const channel = await track('createChannel', platform.createChannel({ body: { name: 'ops', member_ids: [bob.id] } }));
    const channel_id = channel.id;
    expect(channel).toMatchObject({ name: 'ops', organization_id: sb.organizationId });
    expect((await track('getChannel', platform.getChannel({ params: { channel_id } }))).id).toBe(channel_id);
    expect((await track('updateChannel', platform.updateChannel({ params: { channel_id }, body: { description: 'Operations' } }))).description).toBe('Operations');
    expect((await track('replaceChannel', platform.replaceChannel({ params: { channel_id }, body: { name: 'ops-2' } }))).name).toBe('ops-2');
    const listed = [];
    called.add('listChannels');
    for await (const c of platform.paginate('listChannels', { query: { page_size: 1 } })) listed.push(c.id);
    expect(listed).toEqual([channel_id]);

    // Channels of a user
    const joined = await track('listJoinedChannels', platform.listJoinedChannels({ params: { user_id: bob.id } }));
    expect(Array.isArray(joined) ? joined : joined.results).toHaveLength(1);
    expect((await track('getJoinedChannel', platform.getJoinedChannel({ params: { user_id: bob.id, channel_id } }))).id).toBe(channel_id);
    const dm = await track('createDmChannel', platform.createDmChannel({ params: { user_id: sb.agentId }, body: { member_ids: [bob.id] } }));
    expect(dm.is_direct_message).toBe(true);
    expect((await platform.createDmChannel({ params: { user_id: bob.id }, body: { member_ids: [sb.agentId] } })).id).toBe(dm.id);
    const dms = await track('listDmChannels', platform.listDmChannels({ params: { user_id: bob.id } }));
    expect((Array.isArray(dms) ? dms : dms.results).map((c) => c.id)).toEqual([dm.id]);
    expect((await track('getDmChannel', platform.getDmChannel({ params: { user_id: bob.id, dm_channel_id: dm.id } }))).id).toBe(dm.id);

    // Messages
    const id = crypto.randomUUID();
    const message = await track(
      'createChannelMessage',
      platform.createChannelMessage({ params: { channel_id }, body: { id, body: textBody('hello'), notify_users: [bob.id] } }),
    );
    expect(message).toMatchObject({ id, channel_id, sender_id: sb.agentId, body: textBody('hello') });
    expect((await track('getChannelMessage', platform.getChannelMessage({ params: { channel_id, message_id: id } }))).id).toBe(id);
    const edited = await track('updateChannelMessage', platform.updateChannelMessage({ params: { channel_id, message_id: id }, body: { body: textBody('hello!') } }));
    expect(edited.body).toEqual(textBody('hello!'));
    const messages = await track('listChannelMessages', platform.listChannelMessages({ params: { channel_id } }));
    expect((Array.isArray(messages) ? messages : messages.results).map((m) => m.id)).toEqual([id]);

    // Members and notification settings
    const carol = await sb.addUser('Carol');
    const added = await track('addChannelMember', platform.addChannelMember({ params: { channel_id }, body: { member_id: carol.id } }));
    expect(added.member_id).toBe(carol.id);
    const members = await track('listChannelMembers', platform.listChannelMembers({ params: { channel_id } }));
    expect((Array.isArray(members) ? members : members.results).map((m) => m.member_id)).toEqual([sb.agentId, bob.id, carol.id]);
    const bobMember = await track('getChannelMember', platform.getChannelMember({ params: { channel_id, member_id: bob.id } }));
    expect(bobMember.unread_message_count).toBe(1);
    const seen = await track(
      'updateChannelMember',
      platform.updateChannelMember({ params: { channel_id, member_id: bob.id }, body: { last_seen_at: message.created_at } }),
    );
    expect(seen.unread_message_count).toBe(0);
    const settings = await track('getMemberNotificationSettings', platform.getMemberNotificationSettings({ params: { channel_id, member_id: sb.agentId } }));
    expect(settings.mode).toBe('unmuted');
    const muted = await track(
      'updateMemberNotificationSettings',
      platform.updateMemberNotificationSettings({ params: { channel_id, member_id: sb.agentId }, body: { mode: 'muted' } }),
    );
    expect(muted.mode).toBe('muted');

    // Live streams
    const input = await track('createChannelStream', platform.createChannelStream({ params: { channel_id } }));
    expect((await platform.createChannelStream({ params: { channel_id } })).stream_uid).toBe(input.stream_uid);
    const streams = await track('listOrganizationStreams', platform.listOrganizationStreams());
    expect((Array.isArray(streams) ? streams : streams.results).map((s) => s.uid)).toEqual([input.stream_uid]);
    await sb.call('POST', `/_sandbox/channel_messaging/channels/${channel_id}/stream/connect`, { buffer_seconds: 5 });
    await sb.call('POST', `/_sandbox/channel_messaging/channels/${channel_id}/stream/viewers`, { visitor_ids: ['v1'] });
    await sb.call('POST', `/_sandbox/channel_messaging/channels/${channel_id}/stream/recordings`, { name: 'rec' });
    expect(await track('getStreamStatus', platform.getStreamStatus({ params: { channel_id } }))).toEqual({
      is_connected: true,
      is_watchable: false,
      seconds_until_watchable: 5,
    });
    expect(await track('getStreamViewerCount', platform.getStreamViewerCount({ params: { channel_id } }))).toEqual({ viewer_count: 1 });
    const recordings = await track('listRecordedStreams', platform.listRecordedStreams({ params: { channel_id } }));
    expect((Array.isArray(recordings) ? recordings : recordings.results).map((r) => r.meta.name)).toEqual(['rec']);

    expect([...called].sort()).toEqual([...CHANNEL_MESSAGING_IDS].sort());
  });

  it('surfaces the sandbox\'s errors as PlatformHttpError with status and detail', async () => {
    const sb = await startChannelSandbox();
    const platform = createPlatformClient({ url: sb.url, token: sb.token, organizationId: sb.organizationId, retry: { attempts: 1 } });
    onTestFinished(() => platform.close());
    const missing = await platform.getChannel({ params: { channel_id: crypto.randomUUID() } }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(PlatformHttpError);
    expect(missing).toMatchObject({ status: 404, detail: 'Channel not found.' });
    const secret = await platform.createChannel({ body: { name: 'secret', is_public: false } });
    const bob = await sb.addUser('Bob');
    const refused = await platform.addChannelMember({ params: { channel_id: secret.id }, body: { member_id: bob.id } }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ status: 409, detail: 'Members can be added to public channels only.' });
  });
});
