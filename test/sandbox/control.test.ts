/**
 * The control API under /_sandbox (no auth), which plays the agent side and
 * shows the sandbox's state; and the app factory apart from listen().
 */
import { describe, expect, it } from 'vitest';
import { buildSandboxApp } from '../../src/sandbox/index.ts';
import { startTestSandbox, visitorMessage } from './support.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('control API', () => {
  it('GET /_sandbox/info shows the seeded organization, room, foreign organization and room, agent and token', async () => {
    const organizationId = crypto.randomUUID();
    const roomId = crypto.randomUUID();
    const sb = await startTestSandbox({ organizationId, roomId, token: 'fixed-token' });
    const info = (await sb.call('GET', '/_sandbox/info', undefined, { authorization: null })).body;
    expect(info).toMatchObject({ organization_id: organizationId, room_id: roomId, room_name: 'Support', token: 'fixed-token' });
    expect(info.foreign_organization_id).toMatch(UUID);
    expect(info.foreign_organization_id).not.toBe(organizationId);
    expect(info.foreign_room_id).toMatch(UUID);
    expect(info.agent).toMatchObject({ organization_id: organizationId, name: expect.any(String), public_name: expect.any(String) });
    expect(info.agent.id).toMatch(UUID);
    expect(sb).toMatchObject({ organizationId, roomId, token: 'fixed-token', tokenType: 'Token' });
  });

  it('generates a 40-hex token and UUIDs by default', async () => {
    const sb = await startTestSandbox();
    expect(sb.token).toMatch(/^[0-9a-f]{40}$/);
    expect(sb.organizationId).toMatch(UUID);
    expect(sb.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('GET /_sandbox/chats/<id>/messages lists visitor and agent messages with external message ids', async () => {
    const sb = await startTestSandbox();
    const config = await sb.createConfig();
    const inbound = { ...visitorMessage('t', 'question'), message_id: '<q1@example.com>', sender_id: 'ann@example.com' };
    const { chat_id } = (await sb.postMessages(config.id, { messages: [inbound] })).body;
    await sb.call('POST', `/_sandbox/chats/${chat_id}/agent_messages`, { text: 'answer' });
    const messages = (await sb.call('GET', `/_sandbox/chats/${chat_id}/messages`)).body.results.filter(
      (m: { type: string }) => m.type === 'msg',
    );
    expect(messages).toMatchObject([
      { sender_type: 'visitor', message: 'question', message_id: '<q1@example.com>', external_sender_id: 'ann@example.com' },
      { sender_type: 'user', message: 'answer', message_id: null, sender_name: 'Ada Agent' },
    ]);
    for (const m of messages) expect(Date.parse(m.created_at)).not.toBeNaN();
  });

  it('GET /_sandbox/chats/<id> shows the chat, its thread, configuration, mapping and visitor', async () => {
    const sb = await startTestSandbox();
    const config = await sb.createConfig();
    const created = (await sb.postMessages(config.id, { messages: [visitorMessage('thread-9')], variables: { a: 'b' } })).body;
    const res = await sb.call('GET', `/_sandbox/chats/${created.chat_id}`);
    expect(res.body).toMatchObject({
      chat: { id: created.chat_id, chat_type: 'external' },
      thread_id: 'thread-9',
      channel_config_id: config.id,
      mapping_id: created.mapping_id,
      visitor: { variables: { a: 'b' }, external_sender_id: 'customer@example.com' },
    });
    expect((await sb.call('GET', `/_sandbox/chats?thread_id=nothing`)).body.results).toEqual([]);
  });

  it('agent_messages: 404 unknown chat, 400 blank text, 409 ended chat', async () => {
    const sb = await startTestSandbox();
    const config = await sb.createConfig();
    const { chat_id } = (await sb.postMessages(config.id, { messages: [visitorMessage('t')] })).body;
    expect((await sb.call('POST', `/_sandbox/chats/${crypto.randomUUID()}/agent_messages`, { text: 'x' })).status).toBe(404);
    const blank = await sb.call('POST', `/_sandbox/chats/${chat_id}/agent_messages`, { text: '  ' });
    expect(blank.status).toBe(400);
    expect(blank.body.errors.text).toBeDefined();
    await sb.call('POST', `/_sandbox/chats/${chat_id}/end`);
    expect((await sb.call('POST', `/_sandbox/chats/${chat_id}/agent_messages`, { text: 'x' })).status).toBe(409);
  });

  it('reply_suggestions: 400 when the chat has no visitor message to answer', async () => {
    const sb = await startTestSandbox();
    const plain = (await sb.call('POST', '/_sandbox/chats')).body;
    const res = await sb.call('POST', `/_sandbox/chats/${plain.chat.id}/reply_suggestions`, { suggestion: 'x' });
    expect(res.status).toBe(400);
    expect(res.body.errors.message_id).toBeDefined();
  });

  it('POST /_sandbox/users, /rooms and /tokens create them in the given organization', async () => {
    const sb = await startTestSandbox();
    const info = await sb.info();
    const user = await sb.call('POST', '/_sandbox/users', { name: 'Zed Zero', organization_id: info.foreign_organization_id });
    expect(user.status).toBe(201);
    expect(user.body).toMatchObject({ name: 'Zed Zero', public_name: 'Zed', organization_id: info.foreign_organization_id });

    const room = await sb.call('POST', '/_sandbox/rooms', { name: 'Sales' });
    expect(room.body).toMatchObject({ name: 'Sales', organization_id: sb.organizationId });
    const config = await sb.createConfig({ room_id: room.body.id });
    expect(config.room_id).toBe(room.body.id);

    const foreignToken = (await sb.call('POST', '/_sandbox/tokens', { scopes: ['settings'], organization_id: info.foreign_organization_id })).body;
    const foreignPath = `/api/v5/orgs/${info.foreign_organization_id}/unified_messaging`;
    expect((await sb.call('GET', foreignPath, undefined, { authorization: `Token ${foreignToken.token}` })).status).toBe(200);

    const unknown = await sb.call('POST', '/_sandbox/users', { name: 'x', organization_id: crypto.randomUUID() });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors.organization_id).toBeDefined();
  });

  it('POST /_sandbox/clock moves the sandbox clock forward', async () => {
    const sb = await startTestSandbox();
    const before = Date.parse((await sb.info()).now);
    const res = await sb.call('POST', '/_sandbox/clock', { advance_seconds: 3600 });
    expect(Date.parse(res.body.now) - before).toBeGreaterThanOrEqual(3600_000);
    const config = await sb.createConfig();
    expect(Date.parse(config.created_at) - Date.now()).toBeGreaterThan(3500_000);
  });

  it('unknown paths answer 404 with a detail', async () => {
    const sb = await startTestSandbox();
    const res = await sb.call('GET', '/api/v5/nothing');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'Not found.' });
  });
});

describe('buildSandboxApp', () => {
  it('builds the app without listening; inject() reaches the seeded state', async () => {
    const { app, state, seed } = buildSandboxApp({ token: 't0ken' });
    try {
      expect(app.server.listening).toBe(false);
      expect(state.rooms.get(seed.room.id)?.name).toBe('Support');
      const res = await app.inject({
        method: 'GET',
        url: `/api/v5/orgs/${seed.organization.id}/unified_messaging`,
        headers: { authorization: 'Token t0ken' },
      });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ next: null, previous: null, results: [] });
    } finally {
      await app.close();
    }
  });
});
