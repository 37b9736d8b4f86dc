/**
 * The users interface of spec 01 over real HTTP, one user at a time:
 * users/me and users/<user_id> (read, PATCH, PUT) with every documented
 * status, and a refused change leaving the user as it was.
 */
import { describe, expect, it } from 'vitest';
import { User } from '../../src/platform/schemas/users.ts';
import { startSpec01Sandbox } from './spec01-support.ts';

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
});
