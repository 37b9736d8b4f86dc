/**
 * Channel configurations (spec 03), registering: POST collection, the
 * generated secret, the field limits, and every 400 of the error table for it.
 */
import { describe, expect, it } from 'vitest';
import { ChannelConfiguration } from '../../src/platform/schemas/unified-messaging.ts';
import { HEX64, validBody } from './channel-configurations-support.ts';
import { startTestSandbox } from './support.ts';

describe('register (POST collection)', () => {
  it('answers 201 with the configuration, a generated 64-hex secret and max_retry_count 3', async () => {
    const sb = await startTestSandbox();
    const res = await sb.call('POST', sb.um, validBody(sb));
    expect(res.status).toBe(201);
    const config = ChannelConfiguration.parse(res.body);
    expect(config).toMatchObject({ name: 'Inbox', organization_id: sb.organizationId, room_id: sb.roomId, max_retry_count: 3 });
    expect(config.webhook_secret_key).toMatch(HEX64);
    expect(config.created_at).toBe(config.modified_at);
  });

  it('generates a secret when webhook_secret_key is null, and keeps a supplied one', async () => {
    const sb = await startTestSandbox();
    const generated = await sb.call('POST', sb.um, validBody(sb, { webhook_secret_key: null }));
    expect(generated.body.webhook_secret_key).toMatch(HEX64);
    const supplied = await sb.call('POST', sb.um, validBody(sb, { webhook_secret_key: 'my-own-secret', max_retry_count: 5 }));
    expect(supplied.body).toMatchObject({ webhook_secret_key: 'my-own-secret', max_retry_count: 5 });
  });

  const invalid: [string, Record<string, unknown>, string][] = [
    ['blank name', { name: '   ' }, 'name'],
    ['name of 256 characters', { name: 'n'.repeat(256) }, 'name'],
    ['messaging_channel of 65 characters', { messaging_channel: 'c'.repeat(65) }, 'messaging_channel'],
    ['reply_webhook_url over 2048 characters', { reply_webhook_url: `https://x.test/${'p'.repeat(2040)}` }, 'reply_webhook_url'],
    ['reply_webhook_url that is not a URL', { reply_webhook_url: 'not a url' }, 'reply_webhook_url'],
    ['room_id that is not a UUID', { room_id: 'room-1' }, 'room_id'],
    ['max_retry_count that is not an integer', { max_retry_count: 1.5 }, 'max_retry_count'],
  ];
  for (const [what, fields, path] of invalid) {
    it(`Register | 400 | Invalid payload: ${what} → errors.${path}`, async () => {
      const sb = await startTestSandbox();
      const res = await sb.call('POST', sb.um, validBody(sb, fields));
      expect(res.status).toBe(400);
      expect(res.body.detail).toBe('Invalid payload.');
      expect(Object.keys(res.body.errors)).toEqual([path]);
    });
  }

  it('accepts the limits exactly: name 255, messaging_channel 64, URL 2048 characters', async () => {
    const sb = await startTestSandbox();
    const url = `https://x.test/${'p'.repeat(2048 - 'https://x.test/'.length)}`;
    const res = await sb.call(
      'POST',
      sb.um,
      validBody(sb, { name: 'n'.repeat(255), messaging_channel: 'c'.repeat(64), reply_webhook_url: url }),
    );
    expect(res.status).toBe(201);
  });

  it('Register | 400 | Missing required fields: each is named', async () => {
    const sb = await startTestSandbox();
    const res = await sb.call('POST', sb.um, {});
    expect(res.status).toBe(400);
    for (const field of ['name', 'messaging_channel', 'room_id', 'reply_webhook_url']) {
      expect(res.body.errors[field]).toEqual(['This field is required.']);
    }
  });

  it('Register | 400 | Room not found (errors on room_id)', async () => {
    const sb = await startTestSandbox();
    const res = await sb.call('POST', sb.um, validBody(sb, { room_id: crypto.randomUUID() }));
    expect(res.status).toBe(400);
    expect(res.body.errors.room_id).toEqual(['Room not found.']);
  });

  it('Register | 400 | Room in a different organization', async () => {
    const sb = await startTestSandbox();
    const info = await sb.info();
    const res = await sb.call('POST', sb.um, validBody(sb, { room_id: info.foreign_room_id }));
    expect(res.status).toBe(400);
    expect(res.body.errors.room_id).toEqual(['Room belongs to a different organization.']);
  });

  it('answers 400 with a detail for malformed JSON', async () => {
    const sb = await startTestSandbox();
    const res = await sb.call('POST', sb.um, undefined, { raw: '{"name": ' });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/JSON/);
  });

  it('refuses unknown fields by name', async () => {
    const sb = await startTestSandbox();
    const res = await sb.call('POST', sb.um, validBody(sb, { colour: 'blue' }));
    expect(res.status).toBe(400);
    expect(res.body.errors.colour).toEqual(['Unknown field.']);
  });
});
