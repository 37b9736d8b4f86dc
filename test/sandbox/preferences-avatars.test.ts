/**
 * Preferences and avatars of spec 01 over real HTTP: the documented defaults,
 * PATCH (omitted keep their values) and PUT (every required attribute, else
 * 400), desktop_volume 0 to 100; avatars uploaded as multipart, read back
 * and served at the URL the answer gives; every listed status.
 */
import { describe, expect, it } from 'vitest';
import { Avatar, USER_PREFERENCES_DEFAULTS, UserPreferences } from '../../src/platform/schemas/users.ts';
import { startSpec01Sandbox, type Spec01Sandbox, type SeededUser } from './spec01-support.ts';

/** The 8-byte PNG signature plus a few bytes: enough for a stored image. */
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4]);

const FULL_PREFERENCES = {
  chat_capacity: 3,
  desktop_message_sound: 'bell',
  is_desktop_message_sound_continuous: false,
  desktop_visitor_added_sound: 'chime',
  is_desktop_visitor_added_sound_continuous: false,
  ui_language_code: 'fi',
  is_muted_offline: true,
  is_statistics_email_enabled: false,
  is_desktop_notification_enabled: true,
  is_spellcheck_enabled: true,
  desktop_volume: 40,
};

async function upload(sb: Spec01Sandbox, path: string, user: SeededUser | null, form: FormData) {
  const headers: Record<string, string> = { authorization: user === null ? `Token ${sb.token}` : user.auth };
  const res = await fetch(`${sb.url}${path}`, { method: 'POST', body: form, headers });
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text) };
}

const imageForm = (type = 'image/png', bytes: Uint8Array = PNG, field = 'file') => {
  const form = new FormData();
  form.append(field, new Blob([bytes], { type }), 'me.png');
  return form;
};

describe('preferences', () => {
  it('start with the documented defaults, readable through both paths', async () => {
    const sb = await startSpec01Sandbox();
    const uma = await sb.addUser({}, { permissions: { users: false } });
    const res = await sb.as(uma, 'GET', `/api/v5/users/${uma.id}/preferences`);
    expect(res.status).toBe(200);
    expect(UserPreferences.parse(res.body)).toEqual({ user_id: uma.id, ...USER_PREFERENCES_DEFAULTS });
    expect((await sb.as(uma, 'GET', sb.org(`/users/${uma.id}/preferences`))).body).toEqual(res.body);
  });

  it('PATCH changes the given fields and keeps the others; PUT replaces, optional ones back to defaults', async () => {
    const sb = await startSpec01Sandbox();
    const path = `/api/v5/users/${sb.agentId}/preferences`;
    const patched = await sb.call('PATCH', path, { desktop_volume: 0, is_swimlane_visible: false });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ desktop_volume: 0, is_swimlane_visible: false, chat_capacity: 5, ui_language_code: 'en' });
    const put = await sb.call('PUT', path, FULL_PREFERENCES);
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ user_id: sb.agentId, ...FULL_PREFERENCES, is_swimlane_visible: true, is_call_video_auto_start_enabled: true });
    expect((await sb.call('GET', path)).body).toEqual(put.body);
  });

  it('400 x2: PUT without every required attribute; a value out of range or of the wrong type (nothing changes)', async () => {
    const sb = await startSpec01Sandbox();
    const path = `/api/v5/users/${sb.agentId}/preferences`;
    const { desktop_volume: _omitted, ...partial } = FULL_PREFERENCES;
    const missing = await sb.call('PUT', path, partial);
    expect(missing.status).toBe(400);
    expect(missing.body.errors).toEqual({ desktop_volume: ['This field is required.'] });
    const cases: [Record<string, unknown>, string][] = [
      [{ desktop_volume: 101 }, 'desktop_volume'],
      [{ desktop_volume: -1 }, 'desktop_volume'],
      [{ desktop_volume: 50.5 }, 'desktop_volume'],
      [{ chat_capacity: -1 }, 'chat_capacity'],
      [{ ui_language_code: 'english' }, 'ui_language_code'],
      [{ is_muted_offline: 'no' }, 'is_muted_offline'],
      [{ user_id: sb.agentId }, 'user_id'],
    ];
    for (const [body, field] of cases) {
      const res = await sb.call('PATCH', path, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(Object.keys(res.body.errors)).toEqual([field]);
    }
    expect((await sb.call('PATCH', path, { desktop_volume: 100 })).status).toBe(200);
    expect((await sb.call('GET', path)).body).toMatchObject({ desktop_volume: 100, chat_capacity: 5, ui_language_code: 'en' });
  });

  it('401 | 403 subscription | 403 no access to user; org path also 403 organization, users permission, 404', async () => {
    const sb = await startSpec01Sandbox();
    const path = `/api/v5/users/${sb.agentId}/preferences`;
    expect((await sb.call('GET', path, undefined, { authorization: null })).status).toBe(401);
    const lapsed = await sb.addUser({}, { permissions: { subscription: false } });
    const colleague = await sb.addUser({}, { permissions: { users: false } });
    const outsider = await sb.addUser({}, { permissions: { organization_access: false } });
    for (const method of ['GET', 'PATCH', 'PUT']) {
      const body = method === 'GET' ? undefined : FULL_PREFERENCES;
      expect((await sb.as(lapsed, method, path, body)).status).toBe(403);
      expect((await sb.as(colleague, method, path, body)).status).toBe(403);
    }
    const orgPath = sb.org(`/users/${sb.agentId}/preferences`);
    for (const user of [lapsed, colleague, outsider]) expect((await sb.as(user, 'GET', orgPath)).status).toBe(403);
    expect((await sb.call('GET', sb.org(`/users/${crypto.randomUUID()}/preferences`))).status).toBe(404);
  });
});

describe('a deleted user', () => {
  it('has no preferences nor avatar upload any more: 404 on both paths, nothing recreated', async () => {
    const sb = await startSpec01Sandbox();
    const leaver = await sb.addUser();
    await sb.call('PATCH', `/api/v5/users/${leaver.id}/preferences`, { desktop_volume: 10 });
    expect((await sb.call('DELETE', sb.org(`/users/${leaver.id}`))).status).toBe(204);
    const own = `/api/v5/users/${leaver.id}`;
    const org = sb.org(`/users/${leaver.id}`);
    for (const [method, path, body] of [
      ['GET', `${own}/preferences`, undefined],
      ['PATCH', `${own}/preferences`, { desktop_volume: 20 }],
      ['PUT', `${own}/preferences`, FULL_PREFERENCES],
      ['PATCH', `${own}/preferences`, { desktop_volume: 500 }],
      ['GET', `${org}/preferences`, undefined],
      ['GET', `${own}/preferences`, undefined],
    ] as const) {
      expect((await sb.call(method, path, body)).status, `${method} ${path} ${JSON.stringify(body)}`).toBe(404);
    }
    for (const path of [`${own}/avatar`, `${org}/avatar`]) {
      expect((await upload(sb, path, null, imageForm())).status, path).toBe(404);
      expect((await sb.call('GET', path)).status, path).toBe(404);
    }
    expect((await sb.call('GET', org)).body).toMatchObject({ is_deleted: true, avatar_id: null, avatar: null });
  });
});

describe('avatars', () => {
  it('upload (201) answers the avatar; the user shows it; the URL serves the same bytes without credentials', async () => {
    const sb = await startSpec01Sandbox();
    const uma = await sb.addUser({}, { permissions: { users: false } });
    const res = await upload(sb, `/api/v5/users/${uma.id}/avatar`, uma, imageForm());
    expect(res.status).toBe(201);
    const avatar = Avatar.parse(res.body);
    expect(avatar.url.startsWith(sb.url)).toBe(true);
    const served = await fetch(avatar.url);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(new Uint8Array(await served.arrayBuffer())).toEqual(PNG);
    expect((await sb.as(uma, 'GET', `/api/v5/users/${uma.id}/avatar`)).body).toEqual(res.body);
    expect((await sb.as(uma, 'GET', sb.org(`/users/${uma.id}/avatar`))).body).toEqual(res.body);
    expect((await sb.as(uma, 'GET', '/api/v5/users/me')).body).toMatchObject({ avatar_id: avatar.id, avatar: { id: avatar.id, url: avatar.url } });
  });

  it('a new upload (any field name, organization path) replaces the previous avatar, whose URL is gone', async () => {
    const sb = await startSpec01Sandbox();
    const first = (await upload(sb, `/api/v5/users/${sb.agentId}/avatar`, null, imageForm())).body;
    const second = await upload(sb, sb.org(`/users/${sb.agentId}/avatar`), null, imageForm('image/jpeg', new Uint8Array([0xff, 0xd8, 0xff]), 'avatar'));
    expect(second.status).toBe(201);
    expect(second.body.id).not.toBe(first.id);
    expect((await fetch(first.url)).status).toBe(404);
    expect((await fetch(second.body.url)).headers.get('content-type')).toBe('image/jpeg');
    expect((await sb.call('GET', '/api/v5/users/me')).body.avatar_id).toBe(second.body.id);
  });

  it('400 x2: no file (JSON body, empty form); not an image', async () => {
    const sb = await startSpec01Sandbox();
    const path = `/api/v5/users/${sb.agentId}/avatar`;
    expect((await sb.call('POST', path, { url: 'http://example.test/a.png' })).status).toBe(400);
    const form = new FormData();
    form.append('note', 'no file here');
    const empty = await upload(sb, path, null, form);
    expect(empty.status).toBe(400);
    const text = await upload(sb, path, null, imageForm('text/plain', new TextEncoder().encode('hello')));
    expect(text.status).toBe(400);
    expect(text.body.errors.file[0]).toMatch(/image/);
    expect((await sb.call('GET', path)).status).toBe(404); // still no avatar
  });

  it('400 (not 413) naming the file field for a file over 2 MiB, on both paths; exactly 2 MiB is accepted', async () => {
    const sb = await startSpec01Sandbox();
    const path = `/api/v5/users/${sb.agentId}/avatar`;
    const big = new Uint8Array(2 * 1024 * 1024 + 1);
    big.set(PNG);
    for (const [target, field] of [[path, 'file'], [sb.org(`/users/${sb.agentId}/avatar`), 'avatar']] as const) {
      const tooBig = await upload(sb, target, null, imageForm('image/png', big, field));
      expect(tooBig.status, target).toBe(400);
      expect(Object.keys(tooBig.body.errors)).toEqual([field]);
      expect(tooBig.body.errors[field][0]).toMatch(/2 MiB/);
    }
    expect((await sb.call('GET', path)).status).toBe(404);
    const exact = new Uint8Array(2 * 1024 * 1024);
    exact.set(PNG);
    expect((await upload(sb, path, null, imageForm('image/png', exact))).status).toBe(201);
    expect((await sb.call('GET', path)).status).toBe(200);
  });

  it('401 | 403 subscription, no access to user; organization path 403 users permission and 404 user not found', async () => {
    const sb = await startSpec01Sandbox();
    const lapsed = await sb.addUser({}, { permissions: { subscription: false } });
    const colleague = await sb.addUser({}, { permissions: { users: false } });
    const own = `/api/v5/users/${sb.agentId}/avatar`;
    const res = await fetch(`${sb.url}${own}`, { method: 'POST', body: imageForm() });
    expect(res.status).toBe(401);
    for (const user of [lapsed, colleague]) {
      expect((await upload(sb, own, user, imageForm())).status).toBe(403);
      expect((await sb.as(user, 'GET', own)).status).toBe(403);
      expect((await upload(sb, sb.org(`/users/${sb.agentId}/avatar`), user, imageForm())).status).toBe(403);
      expect((await sb.as(user, 'GET', sb.org(`/users/${sb.agentId}/avatar`))).status).toBe(403);
    }
    const unknown = sb.org(`/users/${crypto.randomUUID()}/avatar`);
    expect((await upload(sb, unknown, null, imageForm())).status).toBe(404);
    expect((await sb.call('GET', unknown)).status).toBe(404);
  });
});
