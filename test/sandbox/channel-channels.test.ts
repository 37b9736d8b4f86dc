/**
 * Channels of channel messaging (spec 03) over real HTTP: create, list
 * (paginated, newest activity first), read, PUT/PATCH, joined channels, and
 * the error cases: no token, a foreign organization, unknown or invisible
 * channels, bad payloads.
 */
import { describe, expect, it } from 'vitest';
import { Channel, Collection } from '../../src/platform/schemas/channel-messaging.ts';
import { startChannelSandbox, UUID } from './channel-support.ts';

describe('channels', () => {
  it('POST /channels creates a public channel whose creator is its admin member', async () => {
    const sb = await startChannelSandbox();
    const res = await sb.call('POST', `${sb.cm}/channels`, { name: 'general', description: 'All hands' });
    expect(res.status).toBe(201);
    expect(Channel.parse(res.body)).toMatchObject({
      name: 'general',
      description: 'All hands',
      organization_id: sb.organizationId,
      avatar_url: null,
      is_direct_message: false,
      latest_message: null,
      latest_message_created_at: null,
    });
    expect(res.body.id).toMatch(UUID);
    expect(res.body.is_public).toBe(true);
    expect(res.body.member_ids).toEqual([sb.agentId]);
    const member = await sb.call('GET', `${sb.cm}/channels/${res.body.id}/members/${sb.agentId}`);
    expect(member.body).toMatchObject({ member_id: sb.agentId, is_admin: true });
    expect((await sb.call('GET', `${sb.cm}/channels/${res.body.id}`)).body).toEqual(res.body);
  });

  it('lists channels in the spec 01 wrapper, the channel with the latest message first, page by page', async () => {
    const sb = await startChannelSandbox();
    const a = await sb.createChannel({ name: 'a' });
    const b = await sb.createChannel({ name: 'b' });
    const c = await sb.createChannel({ name: 'c' });
    await sb.post(a.id, 'wake up');
    const first = await sb.call('GET', `${sb.cm}/channels?page_size=2`);
    expect(first.status).toBe(200);
    const page = Collection(Channel).parse(first.body);
    expect(first.body.results.map((ch: { name: string }) => ch.name)).toEqual(['a', 'c']);
    expect(first.body.previous).toBeNull();
    expect(first.body.results[0].latest_message_created_at).not.toBeNull();
    expect('next' in page && page.next).toMatch(/^http:\/\/.*cursor=/);
    const second = await sb.call('GET', new URL(first.body.next).pathname + new URL(first.body.next).search);
    expect(second.body.results.map((ch: { id: string }) => ch.id)).toEqual([b.id]);
    expect(second.body.next).toBeNull();
    expect(second.body.previous).not.toBeNull();
  });

  it('private channels are listed and readable only by their members', async () => {
    const sb = await startChannelSandbox();
    const outsider = await sb.addUser('Olga Outsider');
    const insider = await sb.addUser('Ivan Insider');
    const secret = await sb.createChannel({ name: 'secret', is_public: false, member_ids: [insider.id] });
    const open = await sb.createChannel({ name: 'open' });
    expect(secret.member_ids.sort()).toEqual([sb.agentId, insider.id].sort());
    const names = async (user: typeof outsider) =>
      (await user.call('GET', `${sb.cm}/channels`)).body.results.map((c: { name: string }) => c.name);
    expect(await names(outsider)).toEqual(['open']);
    expect((await names(insider)).sort()).toEqual(['open', 'secret']);
    expect((await outsider.call('GET', `${sb.cm}/channels/${secret.id}`)).status).toBe(404);
    expect((await outsider.call('GET', `${sb.cm}/channels/${open.id}`)).status).toBe(200);
  });

  it('PATCH changes the given fields, PUT replaces them all; only an admin may change a channel', async () => {
    const sb = await startChannelSandbox();
    const ch = await sb.createChannel({ name: 'old', description: 'd', avatar_url: 'https://img.example/a.png' });
    await sb.advanceSeconds(5);
    const patched = await sb.call('PATCH', `${sb.cm}/channels/${ch.id}`, { name: 'new' });
    expect(patched.status).toBe(200);
    expect(Channel.parse(patched.body)).toMatchObject({ name: 'new', description: 'd', avatar_url: 'https://img.example/a.png' });
    expect(Date.parse(patched.body.updated_at)).toBeGreaterThan(Date.parse(patched.body.created_at));
    const put = await sb.call('PUT', `${sb.cm}/channels/${ch.id}`, { name: 'replaced', is_public: false });
    expect(put.body).toMatchObject({ name: 'replaced', description: null, avatar_url: null, is_public: false });

    const member = await sb.addUser('Mo Member');
    const open = await sb.createChannel({ name: 'open' });
    expect((await sb.call('POST', `${sb.cm}/channels/${open.id}/members`, { member_id: member.id })).status).toBe(201);
    const refused = await member.call('PATCH', `${sb.cm}/channels/${open.id}`, { name: 'mine' });
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toMatch(/admin/);
  });

  it('refuses bad payloads with 400 naming the field', async () => {
    const sb = await startChannelSandbox();
    const cases: [unknown, string][] = [
      [{}, 'name'],
      [{ name: '  ' }, 'name'],
      [{ name: 'x'.repeat(256) }, 'name'],
      [{ name: 'n', color: 'red' }, 'color'],
      [{ name: 'n', avatar_url: 'not a url' }, 'avatar_url'],
      [{ name: 'n', member_ids: ['nope'] }, 'member_ids.0'],
      [{ name: 'n', member_ids: [crypto.randomUUID()] }, 'member_ids.0'],
    ];
    for (const [body, field] of cases) {
      const res = await sb.call('POST', `${sb.cm}/channels`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(Object.keys(res.body.errors)).toContain(field);
    }
    const ch = await sb.createChannel();
    const put = await sb.call('PUT', `${sb.cm}/channels/${ch.id}`, { description: 'no name' });
    expect(put.status).toBe(400);
    expect(put.body.errors.name).toEqual(['This field is required.']);
  });

  it('401 without a token, 403 for another organization, 404 for unknown ones and unknown channels', async () => {
    const sb = await startChannelSandbox();
    const info = await sb.info();
    expect((await sb.call('GET', `${sb.cm}/channels`, undefined, { authorization: null })).status).toBe(401);
    expect((await sb.call('GET', `${sb.cm}/channels`, undefined, { authorization: 'Token wrong' })).status).toBe(401);
    expect((await sb.call('GET', `/api/pub/v1/orgs/${info.foreign_organization_id}/channels`)).status).toBe(403);
    expect((await sb.call('GET', `/api/pub/v1/orgs/${crypto.randomUUID()}/channels`)).status).toBe(404);
    const missing = await sb.call('GET', `${sb.cm}/channels/${crypto.randomUUID()}`);
    expect(missing.status).toBe(404);
    expect(missing.body.detail).toBe('Channel not found.');
    expect((await sb.call('PATCH', `${sb.cm}/channels/${crypto.randomUUID()}`, { name: 'x' })).status).toBe(404);
    const bearer = await sb.call('GET', `${sb.cm}/channels`, undefined, { authorization: `Bearer ${sb.token}` });
    expect(bearer.status).toBe(200);
  });
});

describe('joined channels', () => {
  it('lists the channels a user is a member of, direct messages included', async () => {
    const sb = await startChannelSandbox();
    const bob = await sb.addUser('Bob');
    const joined = await sb.createChannel({ name: 'joined', member_ids: [bob.id] });
    const other = await sb.createChannel({ name: 'not joined' });
    const dm = (await sb.call('POST', `${sb.cm}/users/${bob.id}/dm-channels`, { member_ids: [sb.agentId] })).body;
    const list = await sb.call('GET', `${sb.cm}/users/${bob.id}/joined-channels`);
    expect(list.status).toBe(200);
    expect(list.body.results.map((c: { id: string }) => c.id).sort()).toEqual([joined.id, dm.id].sort());
    expect((await sb.call('GET', `${sb.cm}/users/${bob.id}/joined-channels/${joined.id}`)).body.id).toBe(joined.id);
    expect((await sb.call('GET', `${sb.cm}/users/${bob.id}/joined-channels/${other.id}`)).status).toBe(404);
    expect((await sb.call('GET', `${sb.cm}/users/${crypto.randomUUID()}/joined-channels`)).status).toBe(404);
  });
});

describe('control API: channel messaging users', () => {
  it('adds a user with a token of their own; refuses a blank name or an unknown organization', async () => {
    const sb = await startChannelSandbox();
    const info = await sb.info();
    const res = await sb.call('POST', '/_sandbox/channel_messaging/users', { name: 'Dana Dev' }, { authorization: null });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ organization_id: sb.organizationId, name: 'Dana Dev', public_name: 'Dana', token_type: 'Token' });
    const own = await sb.call('POST', `${sb.cm}/channels`, { name: 'dana' }, { authorization: `Token ${res.body.token}` });
    expect(own.body.member_ids).toEqual([res.body.id]);
    const foreign = await sb.call('POST', '/_sandbox/channel_messaging/users', { name: 'F', organization_id: info.foreign_organization_id });
    expect(foreign.body.organization_id).toBe(info.foreign_organization_id);
    expect((await sb.call('GET', `${sb.cm}/channels`, undefined, { authorization: `Token ${foreign.body.token}` })).status).toBe(403);
    expect((await sb.call('POST', '/_sandbox/channel_messaging/users', { name: ' ' })).body.errors.name).toBeDefined();
    const unknown = await sb.call('POST', '/_sandbox/channel_messaging/users', { name: 'X', organization_id: crypto.randomUUID() });
    expect(unknown.body.errors.organization_id).toEqual(['Organization not found.']);
  });
});
