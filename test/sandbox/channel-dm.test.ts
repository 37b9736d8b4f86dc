/**
 * Direct-message channels (spec 03): one per member set — creating it again,
 * from either side, returns the existing channel — and no member can be
 * added afterwards.
 */
import { describe, expect, it } from 'vitest';
import { Channel, Collection } from '../../src/platform/schemas/channel-messaging.ts';
import { startChannelSandbox } from './channel-support.ts';

describe('direct-message channels', () => {
  it('creates one per member set; creating again (from either member) returns the existing one', async () => {
    const sb = await startChannelSandbox();
    const bob = await sb.addUser('Bob');
    const carol = await sb.addUser('Carol');
    const path = (userId: string) => `${sb.cm}/users/${userId}/dm-channels`;

    const created = await sb.call('POST', path(sb.agentId), { member_ids: [bob.id] });
    expect(created.status).toBe(201);
    expect(Channel.parse(created.body)).toMatchObject({ is_direct_message: true, name: null, latest_message: null });
    expect(created.body.member_ids.sort()).toEqual([sb.agentId, bob.id].sort());

    const again = await sb.call('POST', path(sb.agentId), { member_ids: [bob.id, bob.id] });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(created.body.id);
    const fromBob = await bob.call('POST', path(bob.id), { member_ids: [sb.agentId] });
    expect(fromBob.status).toBe(200);
    expect(fromBob.body.id).toBe(created.body.id);

    const group = await sb.call('POST', path(sb.agentId), { member_ids: [bob.id, carol.id] });
    expect(group.status).toBe(201);
    expect(group.body.id).not.toBe(created.body.id);

    const listed = await sb.call('GET', path(bob.id));
    expect(Collection(Channel).parse(listed.body));
    expect(listed.body.results.map((c: { id: string }) => c.id).sort()).toEqual([created.body.id, group.body.id].sort());
    expect((await sb.call('GET', path(carol.id))).body.results.map((c: { id: string }) => c.id)).toEqual([group.body.id]);
    expect((await sb.call('GET', `${path(bob.id)}/${created.body.id}`)).body.id).toBe(created.body.id);
    expect((await sb.call('GET', `${path(carol.id)}/${created.body.id}`)).status).toBe(404);
  });

  it('is not listed under /channels and is readable there only by its members', async () => {
    const sb = await startChannelSandbox();
    const bob = await sb.addUser('Bob');
    const eve = await sb.addUser('Eve');
    const dm = (await sb.call('POST', `${sb.cm}/users/${sb.agentId}/dm-channels`, { member_ids: [bob.id] })).body;
    expect((await sb.call('GET', `${sb.cm}/channels`)).body.results).toEqual([]);
    expect((await bob.call('GET', `${sb.cm}/channels/${dm.id}`)).status).toBe(200);
    expect((await eve.call('GET', `${sb.cm}/channels/${dm.id}`)).status).toBe(404);
    // A regular channel id is not a direct-message channel.
    const regular = await sb.createChannel();
    expect((await sb.call('GET', `${sb.cm}/users/${sb.agentId}/dm-channels/${regular.id}`)).status).toBe(404);
  });

  it('members cannot be added afterwards (409), and admin-only changes are refused (403)', async () => {
    const sb = await startChannelSandbox();
    const bob = await sb.addUser('Bob');
    const carol = await sb.addUser('Carol');
    const dm = (await sb.call('POST', `${sb.cm}/users/${sb.agentId}/dm-channels`, { member_ids: [bob.id] })).body;
    const add = await sb.call('POST', `${sb.cm}/channels/${dm.id}/members`, { member_id: carol.id });
    expect(add.status).toBe(409);
    expect(add.body.detail).toMatch(/direct-message/);
    expect((await sb.call('GET', `${sb.cm}/channels/${dm.id}/members`)).body.results).toHaveLength(2);
    expect((await sb.call('PATCH', `${sb.cm}/channels/${dm.id}`, { is_public: true })).status).toBe(403);
  });

  it('refuses bad member sets with 400 naming the field, unknown path users with 404', async () => {
    const sb = await startChannelSandbox();
    const info = await sb.info();
    const path = `${sb.cm}/users/${sb.agentId}/dm-channels`;
    const cases: [unknown, string][] = [
      [{}, 'member_ids'],
      [{ member_ids: [] }, 'member_ids'],
      [{ member_ids: [sb.agentId] }, 'member_ids'],
      [{ member_ids: ['x'] }, 'member_ids.0'],
      [{ member_ids: [info.foreign_agent.id] }, 'member_ids.0'],
      [{ member_ids: [sb.agentId], name: 'dm' }, 'name'],
    ];
    for (const [body, field] of cases) {
      const res = await sb.call('POST', path, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(Object.keys(res.body.errors)).toContain(field);
    }
    expect((await sb.call('POST', `${sb.cm}/users/${crypto.randomUUID()}/dm-channels`, { member_ids: [sb.agentId] })).status).toBe(404);
    expect((await sb.call('GET', `${sb.cm}/users/${info.foreign_agent.id}/dm-channels`)).status).toBe(404);
  });
});
