/**
 * Channel configurations (spec 03), one at a time: read, replace, update and
 * delete, when the secret is returned, and every 400/404 of the error table
 * for them.
 */
import { describe, expect, it } from 'vitest';
import { HEX64, validBody } from './channel-configurations-support.ts';
import { startTestSandbox } from './support.ts';

describe('read, replace, update, delete one configuration', () => {
  it('GET one answers 200 without the secret', async () => {
    const sb = await startTestSandbox();
    const config = await sb.createConfig();
    const res = await sb.call('GET', `${sb.um}/${config.id}`);
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(config.id);
    expect(res.body).not.toHaveProperty('webhook_secret_key');
  });

  it('GET, PUT, PATCH, DELETE one configuration | 404 | Configuration not found', async () => {
    const sb = await startTestSandbox();
    const path = `${sb.um}/${crypto.randomUUID()}`;
    for (const [method, body] of [['GET'], ['PUT', validBody(sb)], ['PATCH', { name: 'x' }], ['DELETE']] as const) {
      const res = await sb.call(method, path, body);
      expect(res.status, method).toBe(404);
      expect(res.body.detail).toMatch(/not found/i);
    }
  });

  it('PUT replaces every field; omitted max_retry_count returns to 3, omitted secret is kept and not returned', async () => {
    const sb = await startTestSandbox();
    const room = (await sb.call('POST', '/_sandbox/rooms', { name: 'Billing' })).body;
    const config = await sb.createConfig({ max_retry_count: 7 });
    await sb.call('POST', '/_sandbox/clock', { advance_seconds: 5 });
    const res = await sb.call('PUT', `${sb.um}/${config.id}`, {
      name: 'Renamed',
      messaging_channel: 'ticket',
      room_id: room.id,
      reply_webhook_url: 'https://y.test/hook',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: 'Renamed',
      messaging_channel: 'ticket',
      room_id: room.id,
      reply_webhook_url: 'https://y.test/hook',
      max_retry_count: 3,
      created_at: config.created_at,
    });
    expect(res.body).not.toHaveProperty('webhook_secret_key');
    expect(Date.parse(res.body.modified_at) - Date.parse(config.modified_at)).toBeGreaterThanOrEqual(5000);
  });

  it('PUT | 400 | Missing required fields: a partial body is refused and nothing changes', async () => {
    const sb = await startTestSandbox();
    const config = await sb.createConfig();
    const res = await sb.call('PUT', `${sb.um}/${config.id}`, { name: 'Only name' });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.errors).sort()).toEqual(['messaging_channel', 'reply_webhook_url', 'room_id']);
    expect((await sb.call('GET', `${sb.um}/${config.id}`)).body.name).toBe(config.name);
  });

  it('PUT and PATCH | 400 | room not found or in a different organization', async () => {
    const sb = await startTestSandbox();
    const info = await sb.info();
    const config = await sb.createConfig();
    const put = await sb.call('PUT', `${sb.um}/${config.id}`, validBody(sb, { room_id: crypto.randomUUID() }));
    expect(put.status).toBe(400);
    expect(put.body.errors.room_id).toEqual(['Room not found.']);
    const patch = await sb.call('PATCH', `${sb.um}/${config.id}`, { room_id: info.foreign_room_id });
    expect(patch.status).toBe(400);
    expect(patch.body.errors.room_id).toEqual(['Room belongs to a different organization.']);
    const blank = await sb.call('PATCH', `${sb.um}/${config.id}`, { name: '' });
    expect(blank.status).toBe(400);
    expect(blank.body.errors.name).toBeDefined();
  });

  it('PATCH updates only the supplied fields and returns the secret only when it changed', async () => {
    const sb = await startTestSandbox();
    const config = await sb.createConfig({ max_retry_count: 6 });
    const path = `${sb.um}/${config.id}`;

    const renamed = await sb.call('PATCH', path, { name: 'New name' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'New name', messaging_channel: 'email', max_retry_count: 6 });
    expect(renamed.body).not.toHaveProperty('webhook_secret_key');

    const same = await sb.call('PATCH', path, { webhook_secret_key: config.webhook_secret_key });
    expect(same.body).not.toHaveProperty('webhook_secret_key');

    const changed = await sb.call('PATCH', path, { webhook_secret_key: 'rotated-secret' });
    expect(changed.body.webhook_secret_key).toBe('rotated-secret');

    const regenerated = await sb.call('PATCH', path, { webhook_secret_key: null });
    expect(regenerated.body.webhook_secret_key).toMatch(HEX64);
    expect(regenerated.body.webhook_secret_key).not.toBe(config.webhook_secret_key);
  });

  it('PUT returns the secret when it supplies a different one', async () => {
    const sb = await startTestSandbox();
    const config = await sb.createConfig();
    const res = await sb.call('PUT', `${sb.um}/${config.id}`, validBody(sb, { webhook_secret_key: 'replaced' }));
    expect(res.body.webhook_secret_key).toBe('replaced');
  });

  it('PATCH moves modified_at forward', async () => {
    const sb = await startTestSandbox();
    const config = await sb.createConfig();
    await sb.call('POST', '/_sandbox/clock', { advance_seconds: 60 });
    const res = await sb.call('PATCH', `${sb.um}/${config.id}`, { max_retry_count: 1 });
    expect(Date.parse(res.body.modified_at) - Date.parse(config.modified_at)).toBeGreaterThanOrEqual(60_000);
    expect(res.body.created_at).toBe(config.created_at);
  });

  it('DELETE answers 204 with an empty body, and the configuration is gone', async () => {
    const sb = await startTestSandbox();
    const config = await sb.createConfig();
    const res = await sb.call('DELETE', `${sb.um}/${config.id}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await sb.call('GET', `${sb.um}/${config.id}`)).status).toBe(404);
  });

  it("another organization's configuration is not found", async () => {
    const sb = await startTestSandbox();
    const other = await startTestSandbox();
    const config = await other.createConfig();
    expect((await sb.call('GET', `${sb.um}/${config.id}`)).status).toBe(404);
  });
});
