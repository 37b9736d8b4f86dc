/**
 * The users interface of spec 01 over real HTTP: users/me, users by id,
 * organization users (list with ordering and is_deleted, create, read,
 * PATCH/PUT, DELETE) with every documented status, and the User rows of the
 * state table (is_online needs is_online_enabled and is_present; deletion is
 * permanent and never of one's own account).
 */
import { describe, expect, it } from 'vitest';
import { User, UserPage } from '../../src/platform/schemas/users.ts';
import { startSpec01Sandbox, uniqueEmail } from './spec01-support.ts';

describe('users', () => {
  it('users/me answers the authenticated user with organization_id and the nested organization', async () => {
    const sb = await startSpec01Sandbox();
    const res = await sb.call('GET', '/api/v5/users/me');
    expect(res.status).toBe(200);
    const me = User.parse(res.body);
    expect(me).toMatchObject({
      id: sb.agentId,
      organization_id: sb.organizationId,
      organization: { id: sb.organizationId, name: 'Sandbox Organization' },
      first_name: 'Ada',
      last_name: 'Agent',
      full_name: 'Ada Agent',
      is_deleted: false,
      deleted_at: null,
      avatar: null,
      avatar_id: null,
      is_present: false,
      is_online: false,
    });
    const uma = await sb.addUser({ first_name: 'Uma', last_name: 'Ullman', alias: 'U' });
    expect((await sb.as(uma, 'GET', '/api/v5/users/me')).body).toMatchObject({ id: uma.id, full_name: 'Uma Ullman', alias: 'U' });
  });

  it('users/me | 401 | 403 subscription', async () => {
    const sb = await startSpec01Sandbox();
    expect((await sb.call('GET', '/api/v5/users/me', undefined, { authorization: null })).status).toBe(401);
    const lapsed = await sb.addUser({}, { permissions: { subscription: false } });
    const res = await sb.as(lapsed, 'GET', '/api/v5/users/me');
    expect(res.status).toBe(403);
    expect(res.body.detail).toMatch(/subscription/);
  });

  it('users/<user_id>: own account always; others of the organization with the users permission; else 403 no access', async () => {
    const sb = await startSpec01Sandbox();
    const plain = await sb.addUser({}, { permissions: { users: false } });
    const foreign = await sb.addUser({}, { organizationId: sb.foreignOrganizationId });
    expect((await sb.as(plain, 'GET', `/api/v5/users/${plain.id}`)).status).toBe(200);
    expect((await sb.call('GET', `/api/v5/users/${plain.id}`)).body.id).toBe(plain.id);
    for (const id of [sb.agentId, foreign.id, crypto.randomUUID()]) {
      const res = await sb.as(plain, 'GET', `/api/v5/users/${id}`);
      expect(res.status, id).toBe(403);
      expect(res.body.detail).toMatch(/access to this user/);
    }
    expect((await sb.call('GET', `/api/v5/users/${foreign.id}`)).status).toBe(403);
  });

  it('PATCH users/<user_id> changes the given fields; 400 wrong format names the field; 403 no access', async () => {
    const sb = await startSpec01Sandbox();
    const uma = await sb.addUser({ phone: '+1 555', title: 'Agent' });
    const res = await sb.as(uma, 'PATCH', `/api/v5/users/${uma.id}`, { alias: 'Umi', birthday: '1990-04-01', gender: 2 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ alias: 'Umi', birthday: '1990-04-01', gender: 2, phone: '+1 555', title: 'Agent', first_name: 'Uma' });
    expect(Date.parse(res.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(uma.view.updated_at));
    const bad: [Record<string, unknown>, string][] = [
      [{ email: 'not-an-email' }, 'email'],
      [{ first_name: '' }, 'first_name'],
      [{ alias: '' }, 'alias'],
      [{ birthday: '01/04/1990' }, 'birthday'],
      [{ gender: 7 }, 'gender'],
      [{ is_online_enabled: 'yes' }, 'is_online_enabled'],
      [{ is_staff: true }, 'is_staff'],
      [{ email: null }, 'email'],
    ];
    for (const [body, field] of bad) {
      const r = await sb.as(uma, 'PATCH', `/api/v5/users/${uma.id}`, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(Object.keys(r.body.errors)).toContain(field);
    }
    expect((await sb.as(uma, 'PATCH', `/api/v5/users/${uma.id}`, undefined, { raw: '{"alias": ' })).status).toBe(400);
    expect((await sb.as(uma, 'GET', `/api/v5/users/${uma.id}`)).body).toMatchObject({ alias: 'Umi', gender: 2, email: uma.view.email });
    const plain = await sb.addUser({}, { permissions: { users: false } });
    expect((await sb.as(plain, 'PATCH', `/api/v5/users/${sb.agentId}`, { alias: 'x' })).status).toBe(403);
    const byManager = await sb.as(uma, 'PATCH', `/api/v5/users/${sb.agentId}`, { alias: 'Addy' });
    expect(byManager.status).toBe(200);
    expect(byManager.body).toMatchObject({ alias: 'Addy', email: null });
  });

  it('a refused PATCH or PUT changes nothing: names, profile fields and e-mail stay as they were', async () => {
    const sb = await startSpec01Sandbox();
    const uma = await sb.addUser({ title: 'Agent' });
    const path = `/api/v5/users/${uma.id}`;
    const before = (await sb.as(uma, 'GET', path)).body;
    const refused: [string, Record<string, unknown>][] = [
      ['PATCH', { first_name: 'X', last_name: 'Y', alias: 'Xy', title: 'Boss', email: null }],
      ['PATCH', { first_name: 'X', is_bot: false, email: null }],
      ['PUT', { email: null, first_name: 'X', last_name: 'Y', is_online_enabled: false, title: 'Boss' }],
    ];
    for (const [method, body] of refused) {
      const res = await sb.as(uma, method, path, body);
      expect(res.status, `${method} ${JSON.stringify(body)}`).toBe(400);
      expect(Object.keys(res.body.errors)).toEqual(['email']);
    }
    const org = sb.org(`/users/${uma.id}`);
    expect((await sb.call('PATCH', org, { first_name: 'Z', email: null })).status).toBe(400);
    const after = (await sb.as(uma, 'GET', path)).body;
    expect(after).toEqual(before);
    expect(after).toMatchObject({ first_name: 'Uma', last_name: 'User', full_name: 'Uma User', alias: null, title: 'Agent', is_online_enabled: true });
  });

  it('PUT users/<user_id> needs every required attribute (400 missing) and resets omitted optional fields to defaults', async () => {
    const sb = await startSpec01Sandbox();
    const uma = await sb.addUser({ alias: 'Umi', phone: '+1 555', title: 'Lead', gender: 1, birthday: '1990-04-01', is_manager: true });
    const missing = await sb.as(uma, 'PUT', `/api/v5/users/${uma.id}`, { first_name: 'Uma', last_name: 'User' });
    expect(missing.status).toBe(400);
    expect(missing.body.errors).toMatchObject({ email: ['This field is required.'], is_online_enabled: ['This field is required.'] });
    const res = await sb.as(uma, 'PUT', `/api/v5/users/${uma.id}`, {
      email: uma.view.email,
      first_name: 'Uma',
      last_name: 'Renamed',
      is_online_enabled: false,
      title: 'Head',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      last_name: 'Renamed',
      full_name: 'Uma Renamed',
      title: 'Head',
      alias: null,
      phone: null,
      gender: null,
      birthday: null,
      is_manager: false,
      is_bot: false,
      is_online_enabled: false,
    });
  });

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
