/**
 * The author kit's recording context (`threadgate/testing`): submits are
 * refused exactly as a real gateway refuses them (the same code, field and
 * message, compared against one), routes answer as the gateway's boundary
 * does, and attachments, state, skips and closes behave as documented.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AttachmentUnavailableError, defineConnector, RouteError, SubmitInvalidError, type SubmitMessage } from '../../../src/connector/api.ts';
import { fileAttachment, recordingContext } from '../../../src/connector/testing/index.ts';
import { RECORDER_MODULE, startTestGateway } from '../../support/gateway.ts';

const good: SubmitMessage = { threadKey: 'T-1', messageId: 'm-1', senderId: 'ann@example.com', body: 'Hello' };
const BAD: [string, Record<string, unknown>][] = [
  ['a blank body', { ...good, body: '   ' }],
  ['no sender', { ...good, senderId: undefined }],
  ['a thread key too long', { ...good, threadKey: 'k'.repeat(2_001) }],
  ['a wrong sender type', { ...good, senderType: 'bot' }],
  ['a variable that is a number', { ...good, variables: { plan: 3 } }],
];

describe('the recording context', () => {
  it('refuses a bad submit with the error a real gateway gives for it', async () => {
    const tg = await startTestGateway({ connectors: [{ name: 'desk', type: 'recorder', module: RECORDER_MODULE }] });
    const ctx = recordingContext({ name: 'desk' });
    for (const [what, message] of BAD) {
      const kit = await ctx.submit(message as unknown as SubmitMessage).then(() => undefined, (err: unknown) => err);
      expect(kit, what).toBeInstanceOf(SubmitInvalidError);
      const real = await tg.call('POST', '/connectors/desk/submit', message);
      expect(real.status, what).toBe(400);
      expect(real.body, what).toEqual({ code: 'TG_SUBMIT_INVALID', message: (kit as SubmitInvalidError).message });
    }
    expect(ctx.submits).toEqual([]);
    await expect(ctx.submitAll([{ message: good }, { message: { ...good, messageId: 'm-2', body: '' } }])).rejects.toMatchObject({ code: 'TG_SUBMIT_INVALID', index: 1, field: 'body' });
    expect(ctx.submits).toEqual([]);
  });

  it('records submits with their dedup, references and state, and threads by key, id and reference', async () => {
    const ctx = recordingContext({ name: 'desk' });
    expect(await ctx.submit({ ...good, references: ['<a@x>'] }, { state: { cursor: 7 } })).toEqual({ duplicate: false, threadId: 'desk:T-1' });
    expect(await ctx.submit(good)).toEqual({ duplicate: true, threadId: 'desk:T-1' });
    expect(ctx.submits).toHaveLength(1);
    expect(await ctx.state.get('cursor')).toBe(7);
    expect((await ctx.threads.byReference('<a@x>'))?.key).toBe('T-1');
    expect((await ctx.threads.byThreadId('desk:T-1'))?.key).toBe('T-1');
    await ctx.close('T-1');
    expect(ctx.closes).toEqual(['T-1']);
    expect((await ctx.threads.get('T-1'))?.closed).toBe(true);
    await expect(ctx.close('T-404')).rejects.toMatchObject({ code: 'TG_THREAD_NOT_FOUND' });
    expect(await ctx.skip({ messageId: 'x', code: 'TG_NOISE', reason: 'an auto-reply' })).toEqual({ duplicate: false });
    expect(await ctx.skip({ messageId: 'x', code: 'TG_NOISE', reason: 'an auto-reply' })).toEqual({ duplicate: true });
  });

  it('answers routes as the gateway does: a RouteError its status, anything else 500 and a log line, 404 and 405', async () => {
    const connector = defineConnector({
      type: 'routes',
      configSchema: z.strictObject({}),
      create(_config, ctx) {
        ctx.routes.add('POST', '/items/:id', async (req) => {
          if (req.rawBody.length === 0) throw new RouteError(400, 'TG_REQUEST_INVALID', 'empty body');
          if (req.params.id === 'boom') throw new Error('a bug');
          return { status: 202, body: { id: req.params.id, type: req.headers['content-type'], got: JSON.parse(req.rawBody.toString('utf8')) } };
        });
        return { start() {}, stop() {}, async deliver() {} };
      },
    });
    const ctx = recordingContext();
    await connector.create({}, ctx);
    expect(await ctx.request('POST', '/items/7', { body: { a: 1 } })).toEqual({ status: 202, body: { id: '7', type: 'application/json', got: { a: 1 } } });
    expect(await ctx.request('POST', '/items/7')).toEqual({ status: 400, body: { code: 'TG_REQUEST_INVALID', message: 'empty body' } });
    expect(await ctx.request('POST', '/items/boom', { body: {} })).toEqual({ status: 500, body: { code: 'TG_INTERNAL', message: 'internal error' } });
    expect(ctx.logs.some((l) => l.level === 50 && l.msg === 'route POST /items/boom failed')).toBe(true);
    expect((await ctx.request('GET', '/items/7')).status).toBe(405);
    expect((await ctx.request('POST', '/nothing')).status).toBe(404);
    expect(typeof ctx.route('POST', '/items/:id')).toBe('function');
  });

  it('serves the attachments it was given, and refuses any other URL as the platform would', async () => {
    const invoice = fileAttachment('invoice.pdf', { url: 'https://files.platform.example/f/1' });
    const ctx = recordingContext({ files: { [invoice.url]: { content: 'PDF', contentType: 'application/pdf' } } });
    expect(await ctx.attachments.fetch(invoice)).toEqual({ filename: 'invoice.pdf', contentType: 'application/pdf', content: Buffer.from('PDF') });
    await expect(ctx.attachments.fetch(fileAttachment('other.pdf'))).rejects.toBeInstanceOf(AttachmentUnavailableError);
    const put = await ctx.files.put({ filename: 'a.txt', contentType: 'text/plain', content: Buffer.from('hi') });
    expect(put).toMatchObject({ id: 'file-1', size: 2 });
    expect(ctx.puts).toHaveLength(1);
  });
});
