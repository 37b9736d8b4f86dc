/** Spec 03 channel messages: message body version 3, its chunk types, and stored bodies of any version. */
import { describe, expect, it } from 'vitest';
import { ChannelMessage, CreateChannelMessageRequest, MessageBody, MessageChunk } from '../../../src/platform/schemas/channel-messaging.ts';
import { message, paths, textChunk, U1, U2, U3 } from './spec-03-support.ts';

const CHUNKS = {
  text: textChunk,
  link: { type: 'link', kind: 'email', text: 'someone@example.com' },
  file: { type: 'file', url: 'https://files.example.com/a.pdf', name: 'a.pdf', size: 1024 },
  audio: { type: 'audio', url: 'https://files.example.com/a.mp3', title: 'A song' },
  video: { type: 'video', url: 'https://files.example.com/a.mp4', title: 'A film' },
  image: { type: 'image', url: 'https://files.example.com/a.png' },
};

describe('message body version 3', () => {
  it.each(Object.entries(CHUNKS))('parses a %s chunk', (_type, chunk) => {
    expect(MessageChunk.parse(chunk)).toEqual(chunk);
    const body = { body: { version: 3, chunks: [textChunk, chunk] } };
    expect(CreateChannelMessageRequest.safeParse(body).success).toBe(true);
  });

  it('accepts a file chunk without size', () => {
    expect(MessageChunk.safeParse({ type: 'file', url: 'https://x.example/a', name: 'a' }).success).toBe(true);
  });

  it('accepts every link kind', () => {
    for (const kind of ['url', 'phone', 'email']) {
      expect(MessageChunk.safeParse({ type: 'link', kind, text: 'x' }).success).toBe(true);
    }
  });

  it('refuses a wrong chunk naming its path', () => {
    const at = (chunk: unknown) =>
      paths(CreateChannelMessageRequest.safeParse({ body: { version: 3, chunks: [textChunk, chunk] } }));
    expect(at({ type: 'link', kind: 'fax', text: '+1 555' })).toEqual(['body.chunks.1.kind']);
    expect(at({ type: 'sticker', url: 'https://x.example/s.png' })).toEqual(['body.chunks.1.type']);
    expect(at({ type: 'image' })).toEqual(['body.chunks.1.url']);
    expect(at({ type: 'audio', url: 'https://x.example/a.mp3' })).toEqual(['body.chunks.1.title']);
    expect(at({ type: 'file', url: 'https://x.example/a', name: 'a', size: '12' })).toEqual(['body.chunks.1.size']);
    const extra = CreateChannelMessageRequest.safeParse({
      body: { version: 3, chunks: [textChunk, { ...textChunk, bold: true }] },
    });
    expect(paths(extra)).toEqual(['body.chunks.1']);
    expect(extra.error?.issues[0]?.message).toContain('bold');
  });

  it.each([1, 2])('refuses deprecated version %i, saying so', (version) => {
    const result = CreateChannelMessageRequest.safeParse({ body: { version, chunks: [textChunk] } });
    expect(paths(result)).toEqual(['body.version']);
    expect(result.error?.issues[0]?.message).toBe(`Message body version ${version} is deprecated; use version 3.`);
  });

  it('refuses any other version, or none', () => {
    for (const body of [{ version: 4 }, { version: '3' }, {}]) {
      const result = MessageBody.safeParse(body);
      expect(paths(result)).toEqual(['version']);
      expect(result.error?.issues[0]?.message).toBe('Message body version must equal 3.');
    }
  });

  it('requires only version; chunks, when given, hold at least one', () => {
    expect(CreateChannelMessageRequest.safeParse({ body: { version: 3 } }).success).toBe(true);
    expect(paths(MessageBody.safeParse({ version: 3, chunks: [] }))).toEqual(['chunks']);
    expect(paths(CreateChannelMessageRequest.safeParse({}))).toEqual(['body']);
  });

  it('takes a client-generated id and the notify fields', () => {
    const request = {
      id: U1,
      body: { version: 3, chunks: [textChunk] },
      notify_users: [U2, U3],
      notify_teams: ['team-1'],
      notify_channel: true,
    };
    expect(CreateChannelMessageRequest.parse(request)).toEqual(request);
    expect(paths(CreateChannelMessageRequest.safeParse({ ...request, id: 'not-a-uuid' }))).toEqual(['id']);
    expect(paths(CreateChannelMessageRequest.safeParse({ ...request, notify_users: ['bob'] }))).toEqual([
      'notify_users.0',
    ]);
  });

  it('reads stored bodies of any version and chunk type', () => {
    const old = { ...message, body: { version: 1, text: 'legacy' } };
    expect(ChannelMessage.parse(old)).toEqual(old);
    const future = { ...message, body: { version: 3, chunks: [{ type: 'poll', question: '?' }] } };
    expect(ChannelMessage.parse(future)).toEqual(future);
  });
});
