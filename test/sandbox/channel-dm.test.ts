/**
 * Direct-message channels (spec 03): one per member set — creating it again,
 * from either side, returns the existing channel — and no member can be
 * added afterwards.
 */
import { describe, expect, it } from 'vitest';
import { Channel, Collection } from '../../src/platform/schemas/channel-messaging.ts';
import { startChannelSandbox } from './channel-support.ts';

const ids = (res: { body: { results: { id: string }[] } }) => res.body.results.map((c) => c.id).sort();

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
    // Latest activity first: the group channel was created last.
    expect(Collection(Channel).parse(listed.body)).toMatchObject({
      next: null,
      previous: null,
      results: [{ id: group.body.id, is_direct_message: true }, { id: created.body.id, is_direct_message: true }],
    });
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

  it('shows another user\'s direct messages only when the caller is in them; others are 404', async () => {
    const sb = await startChannelSandbox();
    const bob = await sb.addUser('Bob');
    const carol = await sb.addUser('Carol');
    const eve = await sb.addUser('Eve');
    const bobCarol = (await bob.call('POST', `${sb.cm}/users/${bob.id}/dm-channels`, { member_ids: [carol.id] })).body;
    const bobEve = (await bob.call('POST', `${sb.cm}/users/${bob.id}/dm-channels`, { member_ids: [eve.id] })).body;
    await sb.post(bobCarol.id, 'just between us', bob);
    const secret = await sb.createChannel({ name: 'secret', is_public: false, member_ids: [bob.id] });
    const open = await sb.createChannel({ name: 'open', member_ids: [bob.id] });

    // Eve sees only the direct message she is in, and public channels Bob joined.
    const dms = await eve.call('GET', `${sb.cm}/users/${bob.id}/dm-channels`);
    expect(dms.status).toBe(200);
    expect(ids(dms)).toEqual([bobEve.id]);
    const eveJoined = await eve.call('GET', `${sb.cm}/users/${bob.id}/joined-channels`);
    expect(ids(eveJoined)).toEqual([bobEve.id, open.id].sort());
    for (const path of [`dm-channels/${bobCarol.id}`, `joined-channels/${bobCarol.id}`, `joined-channels/${secret.id}`]) {
      const res = await eve.call('GET', `${sb.cm}/users/${bob.id}/${path}`);
      expect(res.status, path).toBe(404);
      expect(res.body.detail, path).toBeDefined();
      expect(JSON.stringify(res.body), path).not.toContain('just between us');
    }
    expect((await eve.call('GET', `${sb.cm}/users/${bob.id}/dm-channels/${bobEve.id}`)).body.id).toBe(bobEve.id);
    expect((await eve.call('GET', `${sb.cm}/users/${bob.id}/joined-channels/${open.id}`)).body.id).toBe(open.id);
    // Bob himself, and Carol (a member), see everything they share.
    expect(ids(await bob.call('GET', `${sb.cm}/users/${bob.id}/dm-channels`))).toEqual([bobCarol.id, bobEve.id].sort());
    expect(ids(await bob.call('GET', `${sb.cm}/users/${bob.id}/joined-channels`))).toEqual([bobCarol.id, bobEve.id, secret.id, open.id].sort());
    expect((await carol.call('GET', `${sb.cm}/users/${bob.id}/dm-channels/${bobCarol.id}`)).body.id).toBe(bobCarol.id);
    expect(ids(await sb.call('GET', `${sb.cm}/users/${bob.id}/joined-channels`))).toEqual([secret.id, open.id].sort());
  });

  it('creates or opens a direct-message channel only for a caller in its member set (403)', async () => {
    const sb = await startChannelSandbox();
    const bob = await sb.addUser('Bob');
    const carol = await sb.addUser('Carol');
    const eve = await sb.addUser('Eve');
    const path = `${sb.cm}/users/${bob.id}/dm-channels`;
    // Not yet existing: Eve may not create Bob and Carol's channel.
    const create = await eve.call('POST', path, { member_ids: [carol.id] });
    expect(create.status).toBe(403);
    expect(create.body.detail).toMatch(/member_ids/);
    expect(ids(await bob.call('GET', path))).toEqual([]);
    // Existing (with a message): Eve still gets 403 and nothing of the channel.
    const dm = (await bob.call('POST', path, { member_ids: [carol.id] })).body;
    await sb.post(dm.id, 'private words', bob);
    const reopen = await eve.call('POST', path, { member_ids: [carol.id] });
    expect(reopen.status).toBe(403);
    expect(JSON.stringify(reopen.body)).not.toContain(dm.id);
    expect(JSON.stringify(reopen.body)).not.toContain('private words');
    // A caller named in member_ids (not the path user) may open it.
    const fromCarol = await carol.call('POST', path, { member_ids: [carol.id] });
    expect(fromCarol.status).toBe(200);
    expect(fromCarol.body.id).toBe(dm.id);
    // Eve may start her own with Bob through Bob's path.
    expect((await eve.call('POST', path, { member_ids: [eve.id] })).status).toBe(201);
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
