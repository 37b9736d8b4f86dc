/**
 * Agents' attachments in the sandbox (docs/decisions/webhook-attachments.md):
 * the control API's agent message takes files and images as
 * base64, the message_created webhook (checked by a real receiver) and the
 * 201 answer carry them as spec 03 file/image chunks with absolute URLs, those
 * URLs download the exact bytes without credentials, and bad bodies are 400
 * naming the field.
 */
import { randomBytes } from 'node:crypto';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { knownAttachments, MessageCreatedEvent } from '../../src/platform/schemas/unified-messaging.ts';
import { startReceiver, startTestSandbox, type TestSandbox } from './support.ts';
import { linkedChat, verified } from './webhooks-support.ts';

const PDF = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(3000), Buffer.from([0, 255, 0])]);
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex');
const FILE_URL = /^http:\/\/127\.0\.0\.1:\d+\/_sandbox\/files\/[\w-]{22}\//;

async function download(url: string) {
  const res = await request(url); // no Authorization: the URL alone is the key
  return { status: res.statusCode, headers: res.headers, bytes: Buffer.from(await res.body.arrayBuffer()) };
}

const agentMessage = (sb: TestSandbox, chatId: string, body: unknown) => sb.call('POST', `/_sandbox/chats/${chatId}/agent_messages`, body);

describe('agent messages with attachments', () => {
  it('the webhook and the answer carry a file and an image whose URLs download the exact bytes', async () => {
    const receiver = await startReceiver();
    const sb = await startTestSandbox();
    const { secret, chatId } = await linkedChat(sb, receiver.url);

    const created = await agentMessage(sb, chatId, {
      text: 'Your invoice and a photo.',
      attachments: [
        { type: 'file', name: 'Rechnung März.pdf', content_type: 'application/pdf', content_base64: PDF.toString('base64') },
        { type: 'image', content_type: 'image/png', content_base64: PNG.toString('base64') },
      ],
    });
    expect(created.status).toBe(201);
    const [file, image] = created.body.attachments;
    expect(file).toEqual({ type: 'file', url: expect.stringMatching(FILE_URL), name: 'Rechnung März.pdf', size: PDF.length });
    expect(file.url).toMatch(/\/Rechnung%20M%C3%A4rz\.pdf$/);
    expect(image).toEqual({ type: 'image', url: expect.stringMatching(FILE_URL) });
    expect(image.url).toMatch(/\/image\.png$/); // no name given: one from the content type

    const event = MessageCreatedEvent.parse(verified((await receiver.waitFor(1))[0]!, secret));
    expect(event.message.attachments).toEqual(created.body.attachments);
    expect(knownAttachments(event.message.attachments)).toEqual(created.body.attachments);

    const pdf = await download(file.url);
    expect(pdf.status).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(pdf.headers['content-length']).toBe(String(PDF.length));
    expect(pdf.bytes.equals(PDF)).toBe(true);
    const png = await download(image.url);
    expect(png.headers['content-type']).toBe('image/png');
    expect(png.bytes.equals(PNG)).toBe(true);

    const listed = await sb.call('GET', `/_sandbox/chats/${chatId}/messages`);
    const last = listed.body.results.at(-1);
    expect(last).toMatchObject({ message: 'Your invoice and a photo.', attachments: created.body.attachments });
    expect(listed.body.results[0].attachments).toEqual([]); // the visitor's message has none
  });

  it('defaults: application/octet-stream and the name "file"; a message without attachments has []', async () => {
    const sb = await startTestSandbox();
    const { chatId } = await linkedChat(sb, 'http://127.0.0.1:9/unused');
    const created = await agentMessage(sb, chatId, { text: 'x', attachments: [{ type: 'file', content_base64: '' }] });
    expect(created.body.attachments).toEqual([{ type: 'file', url: expect.stringMatching(/\/file$/), name: 'file', size: 0 }]);
    const got = await download(created.body.attachments[0].url);
    expect(got).toMatchObject({ status: 200, headers: { 'content-type': 'application/octet-stream', 'content-length': '0' } });
    expect((await agentMessage(sb, chatId, { text: 'y' })).body.attachments).toEqual([]);
  });

  it('refuses bad attachments with 400 naming the field, and an unknown file id with 404', async () => {
    const sb = await startTestSandbox();
    const { chatId } = await linkedChat(sb, 'http://127.0.0.1:9/unused');
    const one = { type: 'file', name: 'a.txt', content_base64: 'aGk=' };
    const cases: [unknown, string][] = [
      [Array.from({ length: 11 }, () => one), 'attachments'],
      [[{ ...one, type: 'audio' }], 'attachments.0.type'],
      [[{ ...one, content_base64: 'not base64!' }], 'attachments.0.content_base64'],
      [[{ type: 'file' }], 'attachments.0.content_base64'],
      [[{ ...one, name: '../etc/passwd' }], 'attachments.0.name'],
      [[{ ...one, name: '  ' }], 'attachments.0.name'],
      [[{ ...one, content_type: 'pdf' }], 'attachments.0.content_type'],
      [[{ ...one, size: 2 }], 'attachments.0.size'],
      ['a.txt', 'attachments'],
    ];
    for (const [attachments, field] of cases) {
      const res = await agentMessage(sb, chatId, { text: 'x', attachments });
      expect(res.status, field).toBe(400);
      expect(Object.keys(res.body.errors), JSON.stringify(attachments).slice(0, 80)).toEqual([field]);
    }
    expect((await sb.call('GET', `/_sandbox/chats/${chatId}/messages`)).body.results).toHaveLength(2); // join + visitor: nothing posted
    expect((await download(`${sb.url}/_sandbox/files/${'A'.repeat(22)}/a.txt`)).status).toBe(404);
  });

  it('purging the chat forgets its files', async () => {
    const sb = await startTestSandbox();
    const { chatId } = await linkedChat(sb, 'http://127.0.0.1:9/unused');
    const created = await agentMessage(sb, chatId, { text: 'x', attachments: [{ type: 'image', content_base64: PNG.toString('base64') }] });
    expect(created.body.attachments[0].url).toMatch(/\/image$/); // no type given: no extension
    expect((await download(created.body.attachments[0].url)).status).toBe(200);
    expect((await sb.call('DELETE', `/_sandbox/chats/${chatId}`)).status).toBe(204);
    expect((await download(created.body.attachments[0].url)).status).toBe(404);
  });
});
