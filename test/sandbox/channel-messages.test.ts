/**
 * Messages of channel messaging (spec 03): body version 3 with the six chunk
 * types, versions 1 and 2 refused as deprecated, client-generated ids,
 * updates by the sender, newest-first listing, the channel's latest message.
 */
import { describe, expect, it } from 'vitest';
import { ChannelMessage, Collection } from '../../src/platform/schemas/channel-messaging.ts';
import { startChannelSandbox, textBody, UUID } from './channel-support.ts';

const ALL_CHUNKS = [
  { type: 'text', text: 'Hello' },
  { type: 'link', kind: 'url', text: 'https://example.com' },
  { type: 'link', kind: 'phone', text: '+15550100' },
  { type: 'link', kind: 'email', text: 'a@example.com' },
  { type: 'file', url: 'https://files.example/a.pdf', name: 'a.pdf', size: 1234 },
  { type: 'file', url: 'https://files.example/b.txt', name: 'b.txt' },
  { type: 'audio', url: 'https://files.example/a.mp3', title: 'Voice note' },
  { type: 'video', url: 'https://files.example/a.mp4', title: 'Demo' },
  { type: 'image', url: 'https://files.example/a.png' },
];

describe('channel messages', () => {
  it('creates a version 3 message with every chunk type and keeps the body as sent', async () => {
    const sb = await startChannelSandbox();
    const ch = await sb.createChannel();
    const res = await sb.call('POST', `${sb.cm}/channels/${ch.id}/messages`, { body: { version: 3, chunks: ALL_CHUNKS } });
    expect(res.status).toBe(201);
    expect(ChannelMessage.parse(res.body)).toMatchObject({
      channel_id: ch.id,
      sender_id: sb.agentId,
      organization_id: sb.organizationId,
      body: { version: 3, chunks: ALL_CHUNKS },
    });
    expect(res.body.id).toMatch(UUID);
    expect((await sb.call('GET', `${sb.cm}/channels/${ch.id}/messages/${res.body.id}`)).body).toEqual(res.body);
    const channel = (await sb.call('GET', `${sb.cm}/channels/${ch.id}`)).body;
    expect(channel.latest_message).toEqual(res.body);
    expect(channel.latest_message_created_at).toBe(res.body.created_at);
  });

  it('a body needs only its version', async () => {
    const sb = await startChannelSandbox();
    const ch = await sb.createChannel();
    const res = await sb.call('POST', `${sb.cm}/channels/${ch.id}/messages`, { body: { version: 3 } });
    expect(res.status).toBe(201);
    expect(res.body.body).toEqual({ version: 3 });
  });

  it('refuses versions 1 and 2 as deprecated and any other version', async () => {
    const sb = await startChannelSandbox();
    const ch = await sb.createChannel();
    for (const version of [1, 2]) {
      const res = await sb.call('POST', `${sb.cm}/channels/${ch.id}/messages`, { body: { version, chunks: [{ type: 'text', text: 'x' }] } });
      expect(res.status).toBe(400);
      expect(res.body.errors['body.version'][0]).toMatch(/deprecated/);
    }
    for (const version of [4, '3']) {
      const res = await sb.call('POST', `${sb.cm}/channels/${ch.id}/messages`, { body: { version } });
      expect(res.status).toBe(400);
      expect(res.body.errors['body.version'][0]).toMatch(/must equal 3/);
    }
    expect((await sb.call('GET', `${sb.cm}/channels/${ch.id}/messages`)).body.results).toEqual([]);
  });

  it('validates each chunk against its type and names the failing field', async () => {
    const sb = await startChannelSandbox();
    const ch = await sb.createChannel();
    const cases: [unknown, string][] = [
      [{}, 'body'],
      [{ body: {} }, 'body.version'],
      [{ body: { version: 3, chunks: [] } }, 'body.chunks'],
      [{ body: { version: 3, chunks: [{ type: 'sticker', url: 'x' }] } }, 'body.chunks.0.type'],
      [{ body: { version: 3, chunks: [{ type: 'text' }] } }, 'body.chunks.0.text'],
      [{ body: { version: 3, chunks: [{ type: 'link', kind: 'fax', text: '1' }] } }, 'body.chunks.0.kind'],
      [{ body: { version: 3, chunks: [{ type: 'file', url: 'u' }] } }, 'body.chunks.0.name'],
      [{ body: { version: 3, chunks: [{ type: 'file', url: 'u', name: 'n', size: 'big' }] } }, 'body.chunks.0.size'],
      [{ body: { version: 3, chunks: [{ type: 'audio', url: 'u' }] } }, 'body.chunks.0.title'],
      [{ body: { version: 3, chunks: [{ type: 'video', title: 't' }] } }, 'body.chunks.0.url'],
      [{ body: { version: 3, chunks: [textBody('ok').chunks[0], { type: 'image' }] } }, 'body.chunks.1.url'],
      [{ body: { version: 3, chunks: [{ type: 'image', url: 'u', alt: 'a' }] } }, 'body.chunks.0.alt'],
      [{ body: textBody('x'), id: 'not-a-uuid' }, 'id'],
      [{ body: textBody('x'), notify_users: ['nope'] }, 'notify_users.0'],
      [{ body: textBody('x'), notify_channel: 'yes' }, 'notify_channel'],
      [{ body: textBody('x'), priority: 1 }, 'priority'],
    ];
    for (const [body, field] of cases) {
      const res = await sb.call('POST', `${sb.cm}/channels/${ch.id}/messages`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(Object.keys(res.body.errors), JSON.stringify(body)).toContain(field);
    }
  });

  it('keeps a client-generated id and refuses it a second time', async () => {
    const sb = await startChannelSandbox();
    const ch = await sb.createChannel();
    const id = crypto.randomUUID();
    const first = await sb.post(ch.id, 'one', undefined, { id });
    expect(first.status).toBe(201);
    expect(first.body.id).toBe(id);
    const again = await sb.post(ch.id, 'two', undefined, { id });
    expect(again.status).toBe(400);
    expect(again.body.errors.id).toBeDefined();
    expect((await sb.call('GET', `${sb.cm}/channels/${ch.id}/messages/${id}`)).body.body).toEqual(textBody('one'));
  });

  it('lists messages newest first, page by page', async () => {
    const sb = await startChannelSandbox();
    const ch = await sb.createChannel();
    for (const text of ['1', '2', '3']) expect((await sb.post(ch.id, text)).status).toBe(201);
    const first = await sb.call('GET', `${sb.cm}/channels/${ch.id}/messages?page_size=2`);
    const texts = (body: { results: { body: { chunks: { text: string }[] } }[] }) => body.results.map((m) => m.body.chunks[0]?.text);
    expect(Collection(ChannelMessage).parse(first.body)).toMatchObject({
      next: expect.stringContaining('page_size=2'),
      previous: null,
      results: [{ channel_id: ch.id, body: textBody('3') }, { channel_id: ch.id, body: textBody('2') }],
    });
    expect(texts(first.body)).toEqual(['3', '2']);
    const next = new URL(first.body.next);
    expect(texts((await sb.call('GET', next.pathname + next.search)).body)).toEqual(['1']);
  });

  it('PATCH replaces the body (version 3 only) and only the sender may do it', async () => {
    const sb = await startChannelSandbox();
    const bob = await sb.addUser('Bob');
    const ch = await sb.createChannel({ member_ids: [bob.id] });
    const msg = (await sb.post(ch.id, 'typo')).body;
    await sb.advanceSeconds(3);
    const path = `${sb.cm}/channels/${ch.id}/messages/${msg.id}`;
    const res = await sb.call('PATCH', path, { body: textBody('fixed') });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: msg.id, created_at: msg.created_at, body: textBody('fixed') });
    expect(Date.parse(res.body.updated_at)).toBeGreaterThan(Date.parse(msg.updated_at));
    const old = await sb.call('PATCH', path, { body: { version: 2, chunks: [] } });
    expect(old.status).toBe(400);
    expect(old.body.errors['body.version'][0]).toMatch(/deprecated/);
    expect((await bob.call('PATCH', path, { body: textBody('hijack') })).status).toBe(403);
    expect((await sb.call('PATCH', `${sb.cm}/channels/${ch.id}/messages/${crypto.randomUUID()}`, { body: textBody('x') })).status).toBe(404);
  });

  it('only members write (403); a message of another channel is not found (404)', async () => {
    const sb = await startChannelSandbox();
    const bob = await sb.addUser('Bob');
    const open = await sb.createChannel({ name: 'open' });
    const other = await sb.createChannel({ name: 'other' });
    const res = await sb.post(open.id, 'hi', bob);
    expect(res.status).toBe(403);
    expect(res.body.detail).toMatch(/not a member/);
    expect((await bob.call('GET', `${sb.cm}/channels/${open.id}/messages`)).status).toBe(200);
    const msg = (await sb.post(open.id, 'hi')).body;
    expect((await sb.call('GET', `${sb.cm}/channels/${other.id}/messages/${msg.id}`)).status).toBe(404);
    expect((await sb.post(crypto.randomUUID(), 'x')).status).toBe(404);
  });
});
