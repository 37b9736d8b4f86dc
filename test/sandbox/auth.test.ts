/**
 * Authentication and permissions of the unified messaging endpoints (spec 03,
 * Authentication; error table row "Any | 403 | Insufficient permissions").
 */
import { describe, expect, it } from 'vitest';
import { startTestSandbox, visitorMessage } from './support.ts';

describe('sandbox authentication', () => {
  it('answers 401 with a detail when the Authorization header is missing', async () => {
    const sb = await startTestSandbox();
    const res = await sb.call('GET', sb.um, undefined, { authorization: null });
    expect(res.status).toBe(401);
    expect(typeof res.body.detail).toBe('string');
  });

  it('answers 401 for an unknown token and for an unknown scheme', async () => {
    const sb = await startTestSandbox();
    expect((await sb.call('GET', sb.um, undefined, { authorization: 'Token nope' })).status).toBe(401);
    expect((await sb.call('GET', sb.um, undefined, { authorization: `Basic ${sb.token}` })).status).toBe(401);
  });

  it('accepts both "Token <t>" and "Bearer <t>"', async () => {
    const sb = await startTestSandbox({ token: 'a'.repeat(40) });
    expect((await sb.call('GET', sb.um, undefined, { authorization: `Token ${'a'.repeat(40)}` })).status).toBe(200);
    expect((await sb.call('GET', sb.um, undefined, { authorization: `Bearer ${'a'.repeat(40)}` })).status).toBe(200);
  });

  it('checks credentials before parsing the body: a malformed body without a token is 401', async () => {
    const sb = await startTestSandbox();
    const res = await sb.call('POST', sb.um, undefined, { authorization: null, raw: '{not json' });
    expect(res.status).toBe(401);
  });

  it('Any | 403 | Insufficient permissions (settings scope): every unified messaging endpoint refuses a token without it', async () => {
    const sb = await startTestSandbox();
    const config = await sb.createConfig();
    const created = await sb.call('POST', '/_sandbox/tokens', { scopes: ['reports'] });
    expect(created.status).toBe(201);
    const authorization = `Token ${created.body.token}`;
    const one = `${sb.um}/${config.id}`;
    const endpoints: [string, string, unknown][] = [
      ['POST', sb.um, { name: 'x', messaging_channel: 'email', room_id: sb.roomId, reply_webhook_url: 'http://x.test/' }],
      ['GET', sb.um, undefined],
      ['GET', one, undefined],
      ['PUT', one, { name: 'x', messaging_channel: 'email', room_id: sb.roomId, reply_webhook_url: 'http://x.test/' }],
      ['PATCH', one, { name: 'y' }],
      ['DELETE', one, undefined],
      ['POST', `${one}/messages`, { messages: [visitorMessage('t-403')] }],
      ['POST', `${one}/close_session`, { thread_id: 't-403' }],
    ];
    for (const [method, path, body] of endpoints) {
      const res = await sb.call(method, path, body, { authorization });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(typeof res.body.detail).toBe('string');
    }
    // Nothing was changed by the refused calls.
    expect((await sb.call('GET', one)).body.name).toBe(config.name);
  });

  it('a token with the settings scope created through the control API works', async () => {
    const sb = await startTestSandbox();
    const created = await sb.call('POST', '/_sandbox/tokens', { scopes: ['settings'] });
    expect((await sb.call('GET', sb.um, undefined, { authorization: `Bearer ${created.body.token}` })).status).toBe(200);
  });

  it("answers 403 when a token of one organization is used on another organization's path", async () => {
    const sb = await startTestSandbox();
    const info = await sb.info();
    const res = await sb.call('GET', `/api/v5/orgs/${info.foreign_organization_id}/unified_messaging`);
    expect(res.status).toBe(403);
    const owned = await sb.call('GET', `/api/v5/orgs/${info.foreign_organization_id}/owned_chats/${crypto.randomUUID()}`);
    expect(owned.status).toBe(403);
  });

  it('Register | 404 | Organization not found', async () => {
    const sb = await startTestSandbox();
    const res = await sb.call('POST', `/api/v5/orgs/${crypto.randomUUID()}/unified_messaging`, {
      name: 'x',
      messaging_channel: 'email',
      room_id: sb.roomId,
      reply_webhook_url: 'http://x.test/',
    });
    expect(res.status).toBe(404);
    expect(res.body.detail).toMatch(/organization/i);
  });
});
