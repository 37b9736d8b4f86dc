/**
 * The control API additions for spec 01: organizations (private history,
 * encryption), users with tokens and permissions, and chats seeded with
 * messages at given times, encrypted or not — and the 400/404 answers when a
 * seed request is wrong.
 */
import { describe, expect, it } from 'vitest';
import { Chat } from '../../src/platform/schemas/chats.ts';
import { at, startSpec01Sandbox } from './spec01-support.ts';

const T0 = '2026-05-01T07:00:00.000Z';

describe('control API: organizations, users, tokens, seeded chats', () => {
  it('a new organization with a room; a user of it with a token works on its paths only', async () => {
    const sb = await startSpec01Sandbox();
    const org = await sb.newOrganization({ name: 'Acme' });
    expect(org).toMatchObject({ name: 'Acme', private_history: false, encryption_enabled: false });
    const admin = await sb.addUser({ first_name: 'Ann' }, { organizationId: org.id });
    expect(admin.view).toMatchObject({ organization_id: org.id, organization: { id: org.id, name: 'Acme' } });
    await sb.seedChat({ room_id: org.room_id, messages: [{ sender: 'visitor', text: 'hi' }, { sender: 'user', text: 'yo', user_id: admin.id }] });
    const listed = await sb.as(admin, 'GET', `/api/v5/orgs/${org.id}/rooms/${org.room_id}/chats`);
    expect(listed.status).toBe(200);
    expect(listed.body.results).toHaveLength(1);
    expect(listed.body.results[0]).toMatchObject({ user_member_count: 1, room_organization_id: org.id });
    expect((await sb.as(admin, 'GET', sb.org('/owned_chats'))).status).toBe(403);
    const patched = await sb.call('PATCH', `/_sandbox/organizations/${org.id}`, { private_history: true });
    expect(patched.body.private_history).toBe(true);
    expect((await sb.call('PATCH', `/_sandbox/organizations/${crypto.randomUUID()}`, {})).status).toBe(404);
    expect((await sb.call('POST', `/_sandbox/organizations/${crypto.randomUUID()}/encryption`)).status).toBe(404);
  });

  it('seeded users are validated like the create endpoint and carry the permissions asked for', async () => {
    const sb = await startSpec01Sandbox();
    const res = await sb.call('POST', `/_sandbox/organizations/${sb.organizationId}/users`, {
      user: { email: 'x@example.test', first_name: 'X', last_name: 'Y' },
      permissions: { reports: false },
    });
    expect(res.status).toBe(201);
    expect(res.body.permissions).toEqual({ subscription: true, organization_access: true, reports: false, users: true });
    const bad = await sb.call('POST', `/_sandbox/organizations/${sb.organizationId}/users`, { user: { email: 'nope' } });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.errors).sort()).toEqual(['email', 'first_name', 'last_name']);
    expect((await sb.call('POST', `/_sandbox/organizations/${crypto.randomUUID()}/users`, { user: {} })).status).toBe(404);
  });

  it('seeds a chat with visitor and user messages at given times (out of order is sorted), ended at a given time', async () => {
    const sb = await startSpec01Sandbox();
    const chat = await sb.seedChat({
      created_at: T0,
      messaging_channel: 'whatsapp',
      messages: [
        { sender: 'user', text: 'second', created_at: at(T0, 90) },
        { sender: 'visitor', text: 'first', created_at: at(T0, 10) },
      ],
      ended_at: at(T0, 300),
    });
    const view = Chat.parse(chat);
    expect(view).toMatchObject({
      created_at: T0,
      ended_at: at(T0, 300),
      is_ended: true,
      is_waiting: false,
      waiting_started_at: T0,
      messaging_channel: 'whatsapp',
      visitor_wait_time: 80,
      duration: 80,
      active_duration: 120,
      chat_type: 'visitor',
    });
    const messages = (await sb.call('GET', `/_sandbox/chats/${chat.id}/messages`)).body.results;
    expect(messages.filter((m: { type: string }) => m.type === 'msg').map((m: { message: string }) => m.message)).toEqual(['first', 'second']);
  });

  it('400 for a wrong seed: encrypted before encryption is enabled, unknown room, visitor message in an operator chat, foreign user, bad time', async () => {
    const sb = await startSpec01Sandbox();
    const foreign = await sb.addUser({}, { organizationId: sb.foreignOrganizationId });
    const cases: [Record<string, unknown>, string][] = [
      [{ encrypted: true }, 'encrypted'],
      [{ room_id: crypto.randomUUID() }, 'room_id'],
      [{ chat_type: 'operator', messages: [{ sender: 'visitor', text: 'x' }] }, 'messages.0.sender'],
      [{ messages: [{ sender: 'user', text: 'x', user_id: foreign.id }] }, 'messages.0.user_id'],
      [{ created_at: 'yesterday' }, 'created_at'],
      [{ chat_type: 'group' }, 'chat_type'],
    ];
    for (const [body, field] of cases) {
      const res = await sb.call('POST', '/_sandbox/chats', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(Object.keys(res.body.errors)).toEqual([field]);
    }
  });
});
