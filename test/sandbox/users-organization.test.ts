/**
 * The users interface of spec 01 over real HTTP, per organization:
 * organization users (list with ordering and is_deleted, create, read,
 * PATCH/PUT, DELETE) with every documented status, and the User rows of the
 * state table (is_online needs is_online_enabled and is_present; deletion is
 * permanent and never of one's own account).
 */
import { describe, expect, it } from 'vitest';
import { User, UserPage } from '../../src/platform/schemas/users.ts';
import { startSpec01Sandbox, uniqueEmail } from './spec01-support.ts';

describe('users', () => {
  it('POST orgs/<org>/users creates a user (200) with defaults; 400 missing attribute; 400 invalid or taken e-mail; bots may have no e-mail', async () => {
    const sb = await startSpec01Sandbox();
    const email = uniqueEmail('new');
    const res = await sb.call('POST', sb.org('/users'), { email, first_name: 'Nia', last_name: 'New' });
    expect(res.status).toBe(200);
    expect(User.parse(res.body)).toMatchObject({
      email,
      organization_id: sb.organizationId,
      is_online_enabled: true,
      is_bot: false,
      is_staff: false,
      is_created_by_sso: false,
      alias: null,
      current_chat_count: 0,
    });
    const missing = await sb.call('POST', sb.org('/users'), { email: uniqueEmail() });
    expect(missing.status).toBe(400);
    expect(Object.keys(missing.body.errors).sort()).toEqual(['first_name', 'last_name']);
    for (const bad of [{ email: 'nope' }, { email: email.toUpperCase() }, { email: null }]) {
      const r = await sb.call('POST', sb.org('/users'), { first_name: 'A', last_name: 'B', ...bad });
      expect(r.status, JSON.stringify(bad)).toBe(400);
      expect(Object.keys(r.body.errors)).toEqual(['email']);
    }
    const bot = await sb.call('POST', sb.org('/users'), { email: null, first_name: 'Bot', last_name: 'One', is_bot: true });
    expect(bot.status).toBe(200);
    expect(bot.body).toMatchObject({ email: null, is_bot: true });
  });

  it('POST orgs/<org>/users | 401 | 403 subscription | 403 organization | 403 no users permission', async () => {
    const sb = await startSpec01Sandbox();
    const body = { email: uniqueEmail(), first_name: 'A', last_name: 'B' };
    expect((await sb.call('POST', sb.org('/users'), body, { authorization: null })).status).toBe(401);
    for (const [permissions, detail] of [
      [{ subscription: false }, /subscription/],
      [{ organization_access: false }, /organization/],
      [{ users: false }, /users permission/],
    ] as const) {
      const user = await sb.addUser({}, { permissions });
      const r = await sb.as(user, 'POST', sb.org('/users'), body);
      expect(r.status).toBe(403);
      expect(r.body.detail).toMatch(detail);
    }
    expect((await sb.call('POST', `/api/v5/orgs/${sb.foreignOrganizationId}/users`, body)).status).toBe(403);
  });

  it('GET orgs/<org>/users: created_at by default, every ordering, is_deleted filter, cursor pages', async () => {
    const sb = await startSpec01Sandbox();
    const made = [];
    for (const name of ['c', 'a', 'b']) {
      await sb.call('POST', '/_sandbox/clock', { advance_seconds: 10 });
      made.push(await sb.addUser({ email: `${name}.${Date.now()}@example.test` }));
    }
    await sb.call('POST', '/_sandbox/clock', { advance_seconds: 10 });
    await sb.call('PATCH', sb.org(`/users/${made[0]!.id}`), { title: 'Touched' });
    // Apart on the sandbox clock: the same millisecond would make the updated_at order a tie.
    await sb.call('POST', '/_sandbox/clock', { advance_seconds: 1 });
    await sb.call('DELETE', sb.org(`/users/${made[1]!.id}`));
    const list = async (query = '') => {
      const res = await sb.call('GET', sb.org(`/users${query}`));
      expect(res.status).toBe(200);
      return UserPage.parse(res.body).results.map((u) => u.id);
    };
    const all = [sb.agentId, ...made.map((u) => u.id)];
    expect(await list()).toEqual(all);
    expect(await list('?ordering=created_at')).toEqual(all);
    expect(await list('?ordering=-created_at')).toEqual([...all].reverse());
    expect((await list('?ordering=-updated_at')).slice(0, 2)).toEqual([made[1]!.id, made[0]!.id]);
    expect((await list('?ordering=updated_at')).slice(-2)).toEqual([made[0]!.id, made[1]!.id]);
    const byEmail = await list('?ordering=email');
    expect(byEmail.filter((id) => id !== sb.agentId)).toEqual([made[1]!.id, made[2]!.id, made[0]!.id]);
    expect(await list('?ordering=-email')).toEqual([...byEmail].reverse());
    expect(await list('?is_deleted=true')).toEqual([made[1]!.id]);
    expect(await list('?is_deleted=false')).toEqual([sb.agentId, made[0]!.id, made[2]!.id]);
    expect((await sb.call('GET', sb.org('/users?ordering=name'))).status).toBe(400);
    expect((await sb.call('GET', sb.org('/users?is_deleted=perhaps'))).status).toBe(400);

    for (let i = 0; i < 20; i++) await sb.addUser();
    const first = await sb.call('GET', sb.org('/users'));
    expect(first.body.results).toHaveLength(20);
    const next = new URL(first.body.next);
    const second = await sb.call('GET', next.pathname + next.search);
    expect(second.body.results).toHaveLength(4);
    expect(second.body.previous).not.toBeNull();
  });

  it('GET orgs/<org>/users | 401 | 403 subscription | 403 organization; reading needs no users permission', async () => {
    const sb = await startSpec01Sandbox();
    expect((await sb.call('GET', sb.org('/users'), undefined, { authorization: null })).status).toBe(401);
    expect((await sb.as(await sb.addUser({}, { permissions: { subscription: false } }), 'GET', sb.org('/users'))).status).toBe(403);
    expect((await sb.as(await sb.addUser({}, { permissions: { organization_access: false } }), 'GET', sb.org('/users'))).status).toBe(403);
    const reader = await sb.addUser({}, { permissions: { users: false } });
    expect((await sb.as(reader, 'GET', sb.org('/users'))).status).toBe(200);
    expect((await sb.as(reader, 'GET', sb.org(`/users/${sb.agentId}`))).status).toBe(200);
  });

  it('GET orgs/<org>/users/<id> | 404 user not found (unknown, or of another organization)', async () => {
    const sb = await startSpec01Sandbox();
    const foreign = await sb.addUser({}, { organizationId: sb.foreignOrganizationId });
    for (const id of [crypto.randomUUID(), foreign.id]) expect((await sb.call('GET', sb.org(`/users/${id}`))).status).toBe(404);
  });

  it('PATCH/PUT orgs/<org>/users/<id>: own details without users permission; others need it (403); 400 x2; 404', async () => {
    const sb = await startSpec01Sandbox();
    const self = await sb.addUser({}, { permissions: { users: false } });
    const own = await sb.as(self, 'PATCH', sb.org(`/users/${self.id}`), { title: 'Mine' });
    expect(own.status).toBe(200);
    expect(own.body.title).toBe('Mine');
    const put = await sb.as(self, 'PUT', sb.org(`/users/${self.id}`), {
      email: self.view.email,
      first_name: 'S',
      last_name: 'T',
      is_online_enabled: true,
    });
    expect(put.status).toBe(200);
    expect(put.body.title).toBeNull();
    const other = await sb.as(self, 'PATCH', sb.org(`/users/${sb.agentId}`), { title: 'Theirs' });
    expect(other.status).toBe(403);
    expect(other.body.detail).toMatch(/users permission/);
    expect((await sb.call('PATCH', sb.org(`/users/${self.id}`), { title: 'By manager' })).body.title).toBe('By manager');
    expect((await sb.call('PUT', sb.org(`/users/${self.id}`), { first_name: 'x' })).status).toBe(400);
    expect((await sb.call('PATCH', sb.org(`/users/${self.id}`), { birthday: 'soon' })).status).toBe(400);
    expect((await sb.call('PATCH', sb.org(`/users/${crypto.randomUUID()}`), { title: 'x' })).status).toBe(404);
    expect((await sb.as(await sb.addUser({}, { permissions: { subscription: false } }), 'PATCH', sb.org(`/users/${self.id}`), {})).status).toBe(403);
  });

  it('active → deleted by DELETE (204): is_deleted, deleted_at, permanent; tokens stop working; own account 400; already deleted 404', async () => {
    const sb = await startSpec01Sandbox();
    const leaver = await sb.addUser();
    const res = await sb.call('DELETE', sb.org(`/users/${leaver.id}`));
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    const gone = await sb.call('GET', sb.org(`/users/${leaver.id}`));
    expect(gone.body).toMatchObject({ is_deleted: true, is_online: false });
    expect(gone.body.deleted_at).not.toBeNull();
    expect((await sb.as(leaver, 'GET', '/api/v5/users/me')).status).toBe(401);
    const again = await sb.call('DELETE', sb.org(`/users/${leaver.id}`));
    expect(again.status).toBe(404);
    expect((await sb.call('PATCH', sb.org(`/users/${leaver.id}`), { title: 'back?' })).status).toBe(404);
    const own = await sb.call('DELETE', sb.org(`/users/${sb.agentId}`));
    expect(own.status).toBe(400);
    expect(own.body.detail).toMatch(/own account/);
    expect((await sb.call('GET', '/api/v5/users/me')).body.is_deleted).toBe(false);
    expect((await sb.call('DELETE', sb.org(`/users/${crypto.randomUUID()}`))).status).toBe(404);
  });

  it('DELETE | 401 | 403 subscription, organization, users permission', async () => {
    const sb = await startSpec01Sandbox();
    const target = await sb.addUser();
    expect((await sb.call('DELETE', sb.org(`/users/${target.id}`), undefined, { authorization: null })).status).toBe(401);
    for (const permissions of [{ subscription: false }, { organization_access: false }, { users: false }]) {
      const user = await sb.addUser({}, { permissions });
      expect((await sb.as(user, 'DELETE', sb.org(`/users/${target.id}`))).status, JSON.stringify(permissions)).toBe(403);
    }
    expect((await sb.call('GET', sb.org(`/users/${target.id}`))).body.is_deleted).toBe(false);
  });

  it('is_online is true only while is_online_enabled and is_present are both true', async () => {
    const sb = await startSpec01Sandbox();
    const uma = await sb.addUser();
    const me = () => sb.as(uma, 'GET', '/api/v5/users/me').then((r) => r.body);
    expect(await me()).toMatchObject({ is_online_enabled: true, is_present: false, is_online: false });
    await sb.as(uma, 'POST', sb.org(`/users/${uma.id}/clients`), { presence_expires_in: 60 });
    expect(await me()).toMatchObject({ is_online_enabled: true, is_present: true, is_online: true });
    await sb.as(uma, 'PATCH', `/api/v5/users/${uma.id}`, { is_online_enabled: false });
    expect(await me()).toMatchObject({ is_online_enabled: false, is_present: true, is_online: false });
    await sb.as(uma, 'PATCH', `/api/v5/users/${uma.id}`, { is_online_enabled: true });
    expect((await me()).is_online).toBe(true);
    await sb.call('POST', '/_sandbox/clock', { advance_seconds: 61 });
    expect(await me()).toMatchObject({ is_online_enabled: true, is_present: false, is_online: false });
  });
});
