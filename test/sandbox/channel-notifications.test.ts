/**
 * Notifications of channel messaging (spec 03): notify_users and
 * notify_channel produce push notifications according to each member's mode
 * (muted, mentions, unmuted; created unmuted, moved by PATCH). The sandbox
 * records what it would have pushed under /_sandbox/channel_messaging/notifications.
 */
import { describe, expect, it } from 'vitest';
import { NotificationSettings } from '../../src/platform/schemas/channel-messaging.ts';
import { startChannelSandbox, type ChannelSandbox, type ChannelUser } from './channel-support.ts';

async function notified(sb: ChannelSandbox, messageId: string): Promise<Record<string, string>> {
  const res = await sb.call('GET', `/_sandbox/channel_messaging/notifications?message_id=${messageId}`);
  return Object.fromEntries(res.body.results.map((n: { user_id: string; reason: string }) => [n.user_id, n.reason]));
}

async function setMode(sb: ChannelSandbox, channelId: string, user: ChannelUser, mode: string) {
  return user.call('PATCH', `${sb.cm}/channels/${channelId}/members/${user.id}/notification_settings`, { mode });
}

describe('notification settings', () => {
  it('start unmuted and move among muted, mentions and unmuted by PATCH', async () => {
    const sb = await startChannelSandbox();
    const bob = await sb.addUser('Bob');
    const ch = await sb.createChannel({ member_ids: [bob.id] });
    const path = `${sb.cm}/channels/${ch.id}/members/${bob.id}/notification_settings`;
    const initial = await sb.call('GET', path);
    expect(initial.status).toBe(200);
    expect(NotificationSettings.parse(initial.body)).toMatchObject({
      channel: ch.id,
      user_id: bob.id,
      organization_id: sb.organizationId,
      mode: 'unmuted',
    });
    await sb.advanceSeconds(2);
    for (const mode of ['muted', 'mentions', 'unmuted', 'mentions', 'muted']) {
      const res = await setMode(sb, ch.id, bob, mode);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: initial.body.id, mode });
      expect((await sb.call('GET', path)).body.mode).toBe(mode);
    }
    expect(Date.parse((await sb.call('GET', path)).body.updated_at)).toBeGreaterThan(Date.parse(initial.body.created_at));
  });

  it('refuses an unknown mode or field (400), another member\'s settings (403), unknown members (404)', async () => {
    const sb = await startChannelSandbox();
    const bob = await sb.addUser('Bob');
    const ch = await sb.createChannel({ member_ids: [bob.id] });
    const bad = await setMode(sb, ch.id, bob, 'loud');
    expect(bad.status).toBe(400);
    expect(bad.body.errors.mode).toBeDefined();
    const extra = await bob.call('PATCH', `${sb.cm}/channels/${ch.id}/members/${bob.id}/notification_settings`, { mode: 'muted', sound: 'on' });
    expect(extra.body.errors.sound).toEqual(['Unknown field.']);
    const other = await sb.call('PATCH', `${sb.cm}/channels/${ch.id}/members/${bob.id}/notification_settings`, { mode: 'muted' });
    expect(other.status).toBe(403);
    const missing = `${sb.cm}/channels/${ch.id}/members/${crypto.randomUUID()}/notification_settings`;
    expect((await sb.call('GET', missing)).status).toBe(404);
    expect((await sb.call('PATCH', missing, { mode: 'muted' })).status).toBe(404);
  });
});

describe('notifications per member mode', () => {
  it('follow the mode table for notify_users and notify_channel; the sender is never notified', async () => {
    const sb = await startChannelSandbox();
    const muted = await sb.addUser('Muted');
    const mentions = await sb.addUser('Mentions');
    const unmuted = await sb.addUser('Unmuted');
    const ch = await sb.createChannel({ member_ids: [muted.id, mentions.id, unmuted.id] });
    expect((await setMode(sb, ch.id, muted, 'muted')).status).toBe(200);
    expect((await setMode(sb, ch.id, mentions, 'mentions')).status).toBe(200);

    // No notify field: nobody.
    const plain = (await sb.post(ch.id, 'quiet')).body;
    expect(await notified(sb, plain.id)).toEqual({});

    // notify_channel: only unmuted members.
    const all = (await sb.post(ch.id, 'everyone', undefined, { notify_channel: true })).body;
    expect(await notified(sb, all.id)).toEqual({ [unmuted.id]: 'channel' });

    // notify_users naming everyone (and the sender): mentions and unmuted, never muted or the sender.
    const named = (await sb.post(ch.id, 'you', undefined, { notify_users: [muted.id, mentions.id, unmuted.id, sb.agentId] })).body;
    expect(await notified(sb, named.id)).toEqual({ [mentions.id]: 'mention', [unmuted.id]: 'mention' });

    // Both: a named member is notified once, as a mention.
    const both = (await sb.post(ch.id, 'both', undefined, { notify_users: [mentions.id], notify_channel: true })).body;
    expect(await notified(sb, both.id)).toEqual({ [mentions.id]: 'mention', [unmuted.id]: 'channel' });

    // notify_teams is accepted and changes nothing.
    const teams = (await sb.post(ch.id, 'teams', undefined, { notify_teams: ['support'] }));
    expect(teams.status).toBe(201);
    expect(await notified(sb, teams.body.id)).toEqual({});

    // Unmuting again restores channel-wide notifications.
    await setMode(sb, ch.id, muted, 'unmuted');
    const later = (await sb.post(ch.id, 'later', undefined, { notify_channel: true })).body;
    expect(await notified(sb, later.id)).toEqual({ [muted.id]: 'channel', [unmuted.id]: 'channel' });

    const byUser = await sb.call('GET', `/_sandbox/channel_messaging/notifications?user_id=${unmuted.id}`);
    expect(byUser.body.results.map((n: { message_id: string }) => n.message_id)).toEqual([all.id, named.id, both.id, later.id]);
    expect(byUser.body.results[0]).toMatchObject({ channel_id: ch.id, mode: 'unmuted' });
  });

  it('refuses notify_users naming someone outside the channel (400), and creates no message', async () => {
    const sb = await startChannelSandbox();
    const outsider = await sb.addUser('Outsider');
    const ch = await sb.createChannel();
    const res = await sb.post(ch.id, 'x', undefined, { notify_users: [outsider.id] });
    expect(res.status).toBe(400);
    expect(res.body.errors['notify_users.0']).toEqual(['Not a member of this channel.']);
    expect((await sb.call('GET', `${sb.cm}/channels/${ch.id}/messages`)).body.results).toEqual([]);
  });
});
