/**
 * The typed platform client pointed at the sandbox drives every spec 01
 * chats and users endpoint with no special cases: it lists, reads and ends
 * chats (decrypted ones too), and manages users, clients, preferences and
 * avatars; answers parse with the response schemas and errors come back as
 * PlatformHttpError with status and detail.
 */
import { describe, expect, it } from 'vitest';
import { at, startSpec01Sandbox, uniqueEmail, type SeededUser } from './spec01-support.ts';
import { platformClientFor, rejection } from './typed-client.ts';

const T0 = '2026-04-01T12:00:00.000Z';

describe('typed client against the sandbox: chats', () => {
  it('lists (with filters and paginate), reads and ends chats; ends with PUT too; errors carry status and detail', async () => {
    const sb = await startSpec01Sandbox();
    const ids: string[] = [];
    for (let i = 0; i < 23; i++) {
      const messages = i % 2 === 0 ? [{ sender: 'visitor', text: `q${i}`, created_at: at(T0, i * 60 + 1) }] : [];
      ids.push((await sb.seedChat({ created_at: at(T0, i * 60), messages })).id);
    }
    const client = platformClientFor(sb);
    const page = await client.listOwnedChats({ query: { ordering: 'created_at', has_visitor_messages: true } });
    expect(page.results).toHaveLength(12);
    expect(page.results[0]!.id).toBe(ids[0]);
    const walked: string[] = [];
    for await (const chat of client.paginate('listChats', { params: { room_id: sb.roomId } })) walked.push(chat.id);
    expect(walked).toEqual([...ids].reverse());

    const one = await client.getOwnedChat({ params: { chat_id: ids[0]! } });
    expect(one).toMatchObject({ id: ids[0], is_ended: false, message_count: 1 });
    const ended = await client.endOwnedChat({ params: { chat_id: ids[0]! }, body: { is_ended: true } });
    expect(ended).toMatchObject({ is_ended: true, duration: 0, active_duration: 60 });
    expect((await client.replaceOwnedChat({ params: { chat_id: ids[1]! }, body: { is_ended: true } })).is_ended).toBe(true);
    const endedOnly = await client.listOwnedChats({ query: { is_ended: true } });
    expect(endedOnly.results.map((c) => c.id).sort()).toEqual([ids[0], ids[1]].sort());

    const missing = await rejection(client.getOwnedChat({ params: { chat_id: crypto.randomUUID() } }));
    expect(missing.status).toBe(404);
    expect(missing.detail).toMatch(/not found/i);
    const empty = await client.createEmptyChat({ params: { user_id: (await client.getMe()).id }, body: { messaging_channel: 'email' } });
    expect(empty).toMatchObject({ chat_type: 'operator', messaging_channel: 'email' });
  });

  it('lists decrypted chats with X-PRIVATE-KEY as a header of the call', async () => {
    const sb = await startSpec01Sandbox();
    const keys = (await sb.call('POST', `/_sandbox/organizations/${sb.organizationId}/encryption`)).body;
    const chat = await sb.seedChat({ encrypted: true, messages: [{ sender: 'visitor', text: 'top secret' }] });
    const client = platformClientFor(sb);
    const page = await client.listDecryptedChats({ params: { room_id: sb.roomId }, query: { limit: 5 }, headers: { 'x-private-key': keys.private_key_one_line } });
    expect(page.count).toBe(1);
    expect(page.results[0]).toMatchObject({ id: chat.id, is_encrypted: true });
    expect(page.results[0]!.messages.find((m) => m.type === 'msg')!.content).toBe('top secret');
    const noKey = await rejection(client.listDecryptedChats({ params: { room_id: sb.roomId } }));
    expect(noKey.status).toBe(400);
  });
});

describe('typed client against the sandbox: users', () => {
  it('manages users: me, create, list (paginate), read, PATCH, PUT, delete', async () => {
    const sb = await startSpec01Sandbox();
    const client = platformClientFor(sb);
    const me = await client.getMe();
    expect(me.organization_id).toBe(sb.organizationId);
    const created = await client.createOrgUser({ body: { email: uniqueEmail('typed'), first_name: 'Tia', last_name: 'Typed' } });
    expect(created.full_name).toBe('Tia Typed');
    const taken = await rejection(client.createOrgUser({ body: { email: created.email, first_name: 'Dup', last_name: 'Licate' } }));
    expect(taken.status).toBe(400);
    expect(taken.fieldErrors).toHaveProperty('email');
    const everyone: string[] = [];
    for await (const user of client.paginate('listOrgUsers', { query: { ordering: '-created_at' } })) everyone.push(user.id);
    expect(everyone).toEqual([created.id, me.id]);
    expect((await client.getUser({ params: { user_id: created.id } })).id).toBe(created.id);
    expect((await client.getOrgUser({ params: { user_id: created.id } })).email).toBe(created.email);
    expect((await client.updateUser({ params: { user_id: created.id }, body: { title: 'Lead' } })).title).toBe('Lead');
    expect((await client.updateOrgUser({ params: { user_id: created.id }, body: { phone: '+358 1' } })).phone).toBe('+358 1');
    const replaced = await client.replaceOrgUser({
      params: { user_id: created.id },
      body: { email: created.email, first_name: 'Tia', last_name: 'Replaced', is_online_enabled: true },
    });
    expect(replaced).toMatchObject({ last_name: 'Replaced', title: null, phone: null });
    expect((await client.replaceUser({ params: { user_id: created.id }, body: { email: created.email, first_name: 'T', last_name: 'R', is_online_enabled: false } })).is_online_enabled).toBe(false);
    await client.deleteOrgUser({ params: { user_id: created.id } });
    expect((await client.listOrgUsers({ query: { is_deleted: true } })).results.map((u) => u.id)).toEqual([created.id]);
    const again = await rejection(client.deleteOrgUser({ params: { user_id: created.id } }));
    expect(again.status).toBe(404);
    const own = await rejection(client.deleteOrgUser({ params: { user_id: me.id } }));
    expect(own.status).toBe(400);
    expect(own.detail).toMatch(/own account/);
  });

  it('manages clients, preferences and avatars', async () => {
    const sb = await startSpec01Sandbox();
    const agent: SeededUser = await sb.addUser({}, { permissions: { users: false } });
    const client = platformClientFor(sb, agent.token);
    const params = { user_id: agent.id };

    const registered = await client.createUserClient({ params, body: { presence_expires_in: 60 } });
    expect(registered.is_about_to_expire).toBe(false);
    expect((await client.getMe()).is_online).toBe(true);
    expect((await client.updateUserClient({ params: { ...params, client_id: registered.id }, body: { presence_expires_in: 90 } })).presence_expires_in).toBe(90);
    expect((await client.replaceUserClient({ params: { ...params, client_id: registered.id }, body: { presence_expires_in: 30 } })).presence_expires_in).toBe(30);
    expect((await client.listUserClients({ params })).results.map((c) => c.id)).toEqual([registered.id]);
    await client.deleteUserClient({ params: { ...params, client_id: registered.id } });
    expect((await client.getMe()).is_present).toBe(false);

    expect((await client.getUserPreferences({ params })).chat_capacity).toBe(5);
    expect((await client.updateUserPreferences({ params, body: { desktop_volume: 10 } })).desktop_volume).toBe(10);
    const replaced = await client.replaceUserPreferences({
      params,
      body: {
        chat_capacity: 2, desktop_message_sound: 'a', is_desktop_message_sound_continuous: false, desktop_visitor_added_sound: 'b',
        is_desktop_visitor_added_sound_continuous: false, ui_language_code: 'de', is_muted_offline: true, is_statistics_email_enabled: false,
        is_desktop_notification_enabled: true, is_spellcheck_enabled: true, desktop_volume: 70,
      },
    });
    expect(replaced).toMatchObject({ ui_language_code: 'de', desktop_volume: 70, is_swimlane_visible: true });
    expect((await client.getOrgUserPreferences({ params })).ui_language_code).toBe('de');

    const form = new FormData();
    form.append('file', new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], { type: 'image/png' }), 'a.png');
    const avatar = await client.uploadUserAvatar({ params, body: form });
    expect((await fetch(avatar.url)).status).toBe(200);
    expect((await client.getUserAvatar({ params })).id).toBe(avatar.id);
    const form2 = new FormData();
    form2.append('file', new Blob([new Uint8Array([0xff, 0xd8])], { type: 'image/jpeg' }), 'b.jpg');
    const second = await client.uploadOrgUserAvatar({ params, body: form2 });
    expect((await client.getOrgUserAvatar({ params })).id).toBe(second.id);
    const forbidden = await rejection(client.getOrgUserAvatar({ params: { user_id: sb.agentId } }));
    expect(forbidden.status).toBe(403);
    expect(forbidden.detail).toMatch(/users permission/);
  });
});
