/**
 * Members of channel messaging (spec 03): added to public channels only,
 * readable by user id, last_seen_at and unread_message_count, is_admin
 * changes by admins.
 */
import { describe, expect, it } from 'vitest';
import { ChannelMember, Collection } from '../../src/platform/schemas/channel-messaging.ts';
import { startChannelSandbox } from './channel-support.ts';

describe('channel members', () => {
  it('adds members to a public channel and lists them in joining order', async () => {
    const sb = await startChannelSandbox();
    const bob = await sb.addUser('Bob');
    const carol = await sb.addUser('Carol');
    const ch = await sb.createChannel();
    const added = await sb.call('POST', `${sb.cm}/channels/${ch.id}/members`, { member_id: bob.id });
    expect(added.status).toBe(201);
    expect(ChannelMember.parse(added.body)).toMatchObject({
      channel: ch.id,
      member_id: bob.id,
      organization_id: sb.organizationId,
      is_admin: false,
      last_seen_at: null,
      unread_message_count: 0,
    });
    expect((await sb.call('POST', `${sb.cm}/channels/${ch.id}/members`, { member_id: carol.id })).status).toBe(201);
    const list = await sb.call('GET', `${sb.cm}/channels/${ch.id}/members`);
    expect(Collection(ChannelMember).parse(list.body)).toMatchObject({
      next: null,
      previous: null,
      results: [
        { member_id: sb.agentId, is_admin: true },
        { member_id: bob.id, is_admin: false },
        { member_id: carol.id, is_admin: false },
      ],
    });
    // By user id or by the member's own id.
    expect((await sb.call('GET', `${sb.cm}/channels/${ch.id}/members/${bob.id}`)).body).toEqual(added.body);
    expect((await sb.call('GET', `${sb.cm}/channels/${ch.id}/members/${added.body.id}`)).body).toEqual(added.body);
    expect((await sb.call('GET', `${sb.cm}/channels/${ch.id}`)).body.member_ids).toEqual([sb.agentId, bob.id, carol.id]);
  });

  it('only an admin of the channel may add members (403), even a public one, even oneself', async () => {
    const sb = await startChannelSandbox();
    const bob = await sb.addUser('Bob');
    const carol = await sb.addUser('Carol');
    const eve = await sb.addUser('Eve');
    const ch = await sb.createChannel({ member_ids: [bob.id] });
    const path = `${sb.cm}/channels/${ch.id}/members`;
    for (const [caller, body] of [
      [eve, { member_id: eve.id }],
      [eve, { member_id: carol.id }],
      [bob, { member_id: carol.id }],
      [bob, { member_id: carol.id, is_admin: true }],
    ] as const) {
      const res = await caller.call('POST', path, body);
      expect(res.status, `${caller.name} ${JSON.stringify(body)}`).toBe(403);
      expect(res.body.detail).toMatch(/admin/);
    }
    expect((await sb.call('GET', `${sb.cm}/channels/${ch.id}`)).body.member_ids).toEqual([sb.agentId, bob.id]);
    // Once made an admin, Bob may add.
    await sb.call('PATCH', `${path}/${bob.id}`, { is_admin: true });
    expect((await bob.call('POST', path, { member_id: carol.id })).status).toBe(201);
    // The creator of a channel is its admin.
    const own = await eve.call('POST', `${sb.cm}/channels`, { name: 'eve' });
    expect((await eve.call('POST', `${sb.cm}/channels/${own.body.id}/members`, { member_id: bob.id })).status).toBe(201);
  });

  it('refuses adding to a private channel (409), twice (400), unknown users (400), admins by non-admins (403)', async () => {
    const sb = await startChannelSandbox();
    const info = await sb.info();
    const bob = await sb.addUser('Bob');
    const carol = await sb.addUser('Carol');
    const secret = await sb.createChannel({ is_public: false });
    const priv = await sb.call('POST', `${sb.cm}/channels/${secret.id}/members`, { member_id: bob.id });
    expect(priv.status).toBe(409);
    expect(priv.body.detail).toMatch(/public channels only/);
    const open = await sb.createChannel();
    const path = `${sb.cm}/channels/${open.id}/members`;
    expect((await sb.call('POST', path, { member_id: bob.id })).status).toBe(201);
    const twice = await sb.call('POST', path, { member_id: bob.id });
    expect(twice.status).toBe(400);
    expect(twice.body.errors.member_id).toBeDefined();
    for (const body of [{}, { member_id: 'x' }, { member_id: info.foreign_agent.id }, { member_id: carol.id, role: 'x' }]) {
      const res = await sb.call('POST', path, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    expect((await bob.call('POST', path, { member_id: carol.id, is_admin: true })).status).toBe(403);
    expect((await sb.call('POST', path, { member_id: carol.id, is_admin: true })).body.is_admin).toBe(true);
    expect((await sb.call('GET', `${path}/${crypto.randomUUID()}`)).status).toBe(404);
  });

  it('counts messages of others since last_seen_at as unread; writing or PATCHing last_seen_at reads them', async () => {
    const sb = await startChannelSandbox();
    const bob = await sb.addUser('Bob');
    const ch = await sb.createChannel({ member_ids: [bob.id] });
    const bobPath = `${sb.cm}/channels/${ch.id}/members/${bob.id}`;
    const agentPath = `${sb.cm}/channels/${ch.id}/members/${sb.agentId}`;
    await sb.post(ch.id, 'one');
    await sb.advanceSeconds(1);
    const second = (await sb.post(ch.id, 'two')).body;
    expect((await sb.call('GET', bobPath)).body).toMatchObject({ unread_message_count: 2, last_seen_at: null });
    // The sender's own messages are never unread, and writing marks the channel seen.
    expect((await sb.call('GET', agentPath)).body).toMatchObject({ unread_message_count: 0, last_seen_at: second.created_at });

    const seen = await bob.call('PATCH', bobPath, { last_seen_at: second.created_at });
    expect(seen.status).toBe(200);
    expect(seen.body).toMatchObject({ unread_message_count: 0, last_seen_at: second.created_at });
    await sb.advanceSeconds(1);
    await sb.post(ch.id, 'three');
    expect((await sb.call('GET', bobPath)).body.unread_message_count).toBe(1);
    await bob.call('PATCH', bobPath, { last_seen_at: '2000-01-01T00:00:00Z' });
    expect((await sb.call('GET', bobPath)).body.unread_message_count).toBe(3);
    const reply = await sb.post(ch.id, 'from bob', bob);
    expect(reply.status).toBe(201);
    expect((await sb.call('GET', bobPath)).body).toMatchObject({ unread_message_count: 0, last_seen_at: reply.body.created_at });
    expect((await sb.call('GET', agentPath)).body.unread_message_count).toBe(1);
  });

  it('PATCH: is_admin by admins only, last_seen_at by the member or an admin, bad values 400', async () => {
    const sb = await startChannelSandbox();
    const bob = await sb.addUser('Bob');
    const carol = await sb.addUser('Carol');
    const ch = await sb.createChannel({ member_ids: [bob.id, carol.id] });
    const bobPath = `${sb.cm}/channels/${ch.id}/members/${bob.id}`;
    expect((await bob.call('PATCH', bobPath, { is_admin: true })).status).toBe(403);
    expect((await carol.call('PATCH', bobPath, { last_seen_at: '2026-01-01T00:00:00Z' })).status).toBe(403);
    const promoted = await sb.call('PATCH', bobPath, { is_admin: true });
    expect(promoted.body.is_admin).toBe(true);
    expect((await sb.call('PATCH', bobPath, { last_seen_at: '2026-01-01T00:00:00+02:00' })).body.last_seen_at).toBe('2025-12-31T22:00:00.000Z');
    for (const body of [{ last_seen_at: 'yesterday' }, { is_admin: 'yes' }, { nickname: 'b' }]) {
      const res = await sb.call('PATCH', bobPath, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(Object.keys(res.body.errors)).toEqual(Object.keys(body));
    }
  });
});
