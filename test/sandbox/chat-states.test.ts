/**
 * The Chat rows of spec 01's state table over real HTTP: ending an open chat
 * with PATCH or PUT when permitted (locked, is_waiting false, ended_at set,
 * duration and active_duration with the 60-second rule), an ended chat
 * refusing message and membership changes and never reopening; plus the
 * owned chat's permission statuses and the empty (operator) chat.
 */
import { describe, expect, it } from 'vitest';
import { Chat } from '../../src/platform/schemas/chats.ts';
import { at, startSpec01Sandbox } from './spec01-support.ts';

const T0 = '2026-03-01T08:00:00.000Z';

describe('chat states', () => {
  it('open → ended by PATCH: locked, is_waiting false, ended_at set, duration first→last message, active_duration 60 s rule', async () => {
    const sb = await startSpec01Sandbox();
    // Gaps: 30 s (all active), 200 s (60 s active), 45 s (all active), 61 s (60 s active); the last message adds 60 s (ended long after).
    const chat = await sb.seedChat({
      created_at: T0,
      messages: [
        { sender: 'visitor', text: 'a', created_at: at(T0, 10) },
        { sender: 'user', text: 'b', created_at: at(T0, 40) },
        { sender: 'visitor', text: 'c', created_at: at(T0, 240) },
        { sender: 'visitor', text: 'd', created_at: at(T0, 285) },
        { sender: 'user', text: 'e', created_at: at(T0, 346) },
      ],
    });
    const path = sb.org(`/owned_chats/${chat.id}`);
    const before = Chat.parse((await sb.call('GET', path)).body);
    expect(before).toMatchObject({ is_ended: false, ended_at: null, duration: null, active_duration: null, visitor_wait_time: 30 });

    const ended = await sb.call('PATCH', path, { is_ended: true });
    expect(ended.status).toBe(200);
    expect(ended.body).toMatchObject({ is_ended: true, is_waiting: false, duration: 336, active_duration: 30 + 60 + 45 + 60 + 60 });
    expect(ended.body.ended_at).not.toBeNull();
  });

  it('open and waiting → ended by PUT: is_waiting turns false, waiting_started_at stays', async () => {
    const sb = await startSpec01Sandbox();
    const chat = await sb.seedChat({ created_at: T0, messages: [{ sender: 'visitor', text: 'anyone?', created_at: at(T0, 1) }] });
    const path = sb.org(`/owned_chats/${chat.id}`);
    expect((await sb.call('GET', path)).body).toMatchObject({ is_waiting: true, is_pending: true, waiting_started_at: T0 });
    const res = await sb.call('PUT', path, { is_ended: true });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ is_ended: true, is_waiting: false, is_pending: false, waiting_started_at: T0, duration: 0, active_duration: 60 });
  });

  it('ended → cannot be reopened: is_ended false is refused (400) and the chat stays ended', async () => {
    const sb = await startSpec01Sandbox();
    const chat = await sb.seedChat({ messages: [{ sender: 'visitor', text: 'x' }], ended_at: new Date().toISOString() });
    const path = sb.org(`/owned_chats/${chat.id}`);
    for (const method of ['PATCH', 'PUT']) expect((await sb.call(method, path, { is_ended: false })).status).toBe(400);
    expect((await sb.call('GET', path)).body.is_ended).toBe(true);
  });

  it('ended → any edit of messages or memberships is rejected (a new agent joining, a message) and nothing changes', async () => {
    const sb = await startSpec01Sandbox();
    const chat = await sb.seedChat({ messages: [{ sender: 'visitor', text: 'x' }] });
    const path = sb.org(`/owned_chats/${chat.id}`);
    await sb.call('PATCH', path, { is_ended: true });
    const newcomer = (await sb.call('POST', '/_sandbox/users', { name: 'Nina Newcomer' })).body.id;
    const join = await sb.call('POST', `/_sandbox/chats/${chat.id}/agent_messages`, { text: 'joining', sender_id: newcomer });
    expect(join.status).toBe(409);
    const message = await sb.call('POST', `/_sandbox/chats/${chat.id}/agent_messages`, { text: 'late' });
    expect(message.status).toBe(409);
    expect((await sb.call('GET', path)).body).toMatchObject({ message_count: 1, user_member_count: 0, member_count: 1 });
  });

  it('owned chat GET and end | 403 | no active subscription, no organization access', async () => {
    const sb = await startSpec01Sandbox();
    const chat = await sb.seedChat();
    const path = sb.org(`/owned_chats/${chat.id}`);
    for (const permissions of [{ subscription: false }, { organization_access: false }]) {
      const user = await sb.addUser({}, { permissions });
      expect((await sb.as(user, 'GET', path)).status).toBe(403);
      expect((await sb.as(user, 'PATCH', path, { is_ended: true })).status).toBe(403);
      expect((await sb.as(user, 'PUT', path, { is_ended: true })).status).toBe(403);
      expect((await sb.as(user, 'GET', sb.org('/owned_chats'))).status).toBe(403);
    }
    expect((await sb.call('GET', path)).body.is_ended).toBe(false);
  });

  it('owned chats need the reports permission only when the organization has private history', async () => {
    const sb = await startSpec01Sandbox();
    const chat = await sb.seedChat();
    const noReports = await sb.addUser({}, { permissions: { reports: false } });
    const path = sb.org(`/owned_chats/${chat.id}`);
    expect((await sb.as(noReports, 'GET', path)).status).toBe(200);
    expect((await sb.as(noReports, 'GET', sb.org('/owned_chats'))).status).toBe(200);
    // The room listing always needs it.
    expect((await sb.as(noReports, 'GET', sb.org(`/rooms/${sb.roomId}/chats`))).status).toBe(403);

    await sb.call('PATCH', `/_sandbox/organizations/${sb.organizationId}`, { private_history: true });
    const denied = await sb.as(noReports, 'GET', path);
    expect(denied.status).toBe(403);
    expect(denied.body.detail).toMatch(/reports/);
    expect((await sb.as(noReports, 'GET', sb.org('/owned_chats'))).status).toBe(403);
    expect((await sb.as(noReports, 'PATCH', path, { is_ended: true })).status).toBe(403);
    expect((await sb.call('GET', path)).status).toBe(200); // the seeded token has every permission
  });

  it('listings | 401 not authenticated; 404 organization not found; 403 token of another organization', async () => {
    const sb = await startSpec01Sandbox();
    for (const path of [sb.org('/owned_chats'), sb.org(`/rooms/${sb.roomId}/chats`)]) {
      expect((await sb.call('GET', path, undefined, { authorization: null })).status).toBe(401);
      expect((await sb.call('GET', path, undefined, { authorization: 'Token nope' })).status).toBe(401);
    }
    expect((await sb.call('GET', `/api/v5/orgs/${crypto.randomUUID()}/owned_chats`)).status).toBe(404);
    expect((await sb.call('GET', `/api/v5/orgs/${sb.foreignOrganizationId}/owned_chats`)).status).toBe(403);
    expect((await sb.call('GET', `/api/v5/orgs/${sb.foreignOrganizationId}/rooms/${sb.foreignRoomId}/chats`)).status).toBe(403);
  });

  it('POST users/<user_id>/chats creates an empty chat: chat_type operator, no visitor, not waiting, messaging_channel kept', async () => {
    const sb = await startSpec01Sandbox();
    const res = await sb.call('POST', `/api/v5/users/${sb.agentId}/chats`, { messaging_channel: 'webchat' });
    expect(res.status).toBe(201);
    const chat = Chat.parse(res.body);
    expect(chat).toMatchObject({
      chat_type: 'operator',
      messaging_channel: 'webchat',
      is_waiting: false,
      waiting_started_at: null,
      message_count: 0,
      member_count: 0,
      visitor_member_count: 0,
      room_id: sb.roomId,
    });
    expect((await sb.call('GET', sb.org(`/owned_chats/${chat.id}`))).body.id).toBe(chat.id);
    for (const body of [{ messaging_channel: '' }, { messaging_channel: 'sms' }, { messaging_channel: 'Email' }, { messaging_channel: 3 }, { room_id: 42 }, { room_id: null }, { room_id: [sb.roomId] }]) {
      const refused = await sb.call('POST', `/api/v5/users/${sb.agentId}/chats`, body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(Object.keys(refused.body.errors)).toEqual(Object.keys(body));
    }
    for (const channel of ['email', 'whatsapp']) {
      const made = await sb.call('POST', `/api/v5/users/${sb.agentId}/chats`, { messaging_channel: channel, room_id: sb.roomId });
      expect(made.status).toBe(201);
      expect(made.body.messaging_channel).toBe(channel);
    }
    expect((await sb.call('POST', `/api/v5/users/${sb.agentId}/chats`, { room_id: sb.foreignRoomId })).status).toBe(400);
    const other = await sb.addUser({}, { organizationId: sb.foreignOrganizationId });
    expect((await sb.call('POST', `/api/v5/users/${other.id}/chats`, {})).status).toBe(403);
  });
});
