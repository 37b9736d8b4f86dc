/**
 * `deliver` in a recording context (threadgate/testing) against the
 * counterpart: a reply suggestion and an empty message are skipped, a thread
 * the gateway never saw is refused; a refused token dead-letters and makes
 * the connector unhealthy without logging it; a reply cut off by WhatsApp's
 * trouble resumes with what was not sent; an agent's image goes as an image
 * and a file of a type WhatsApp does not take is named under the text; the
 * template is not sent again while the last one is unanswered; old progress
 * is pruned.
 */
import { afterEach, describe, expect, it } from 'vitest';
import whatsappConnector from '../../../connectors/whatsapp/index.ts';
import { progressKey, pruneReplyProgress } from '../../../connectors/whatsapp/reply-sender.ts';
import type { ConnectorInstance } from '../../../src/connector/api.ts';
import { fileAttachment, imageAttachment, messageCreated, recordingContext, replySuggestionCreated, type RecordingContext, type ServedFile } from '../../../src/connector/testing/index.ts';
import { startWhatsApp, type TestWhatsApp } from '../../support/whatsapp/whatsapp.ts';

const ANN = '4915100000001';
let wa: TestWhatsApp;
afterEach(() => wa?.close());

/** A connector on the test's counterpart `wa`, in a recording context that serves `files` to ctx.attachments. */
async function connector(extra: Record<string, unknown> = {}, files: Record<string, ServedFile> = {}): Promise<{ ctx: RecordingContext; instance: ConnectorInstance }> {
  const ctx = recordingContext({ name: 'whatsapp', files });
  const instance = await whatsappConnector.create(whatsappConnector.configSchema.parse(wa.settings(extra)), ctx);
  return { ctx, instance };
}
const attempt = (n: number) => ({ signal: new AbortController().signal, attempt: n });

describe('WhatsApp replies', () => {
  it('skips reply suggestions and empty messages; refuses a thread the gateway never saw', async () => {
    wa = await startWhatsApp();
    const { ctx, instance } = await connector();
    const thread = await ctx.threads.attach(ANN, []);
    expect(await instance.deliver(replySuggestionCreated({ threadId: thread.threadId, suggestion: 'Offer a voucher' }), thread, attempt(1))).toEqual({ skipped: 'WhatsApp has no drafts: reply suggestions are not sent to the customer' });
    expect(await instance.deliver(messageCreated({ threadId: thread.threadId, text: '  ' }), thread, attempt(1))).toEqual({ skipped: 'the agent’s message has neither text nor files' });
    await expect(instance.deliver(messageCreated({ threadId: 'whatsapp:gone', text: 'Hi' }), undefined, attempt(1))).rejects.toMatchObject({ code: 'TG_WHATSAPP_NO_CUSTOMER', permanent: true });
    expect(wa.sent).toEqual([]);
  });

  it('a refused token dead-letters the reply and makes the connector unhealthy, never logging the token', async () => {
    wa = await startWhatsApp();
    wa.openWindow(ANN);
    const { ctx, instance } = await connector({ access_token: 'EAAG-revoked-token-0123456789' });
    const thread = await ctx.threads.attach(ANN, []);
    await expect(instance.deliver(messageCreated({ threadId: thread.threadId, text: 'Hi' }), thread, attempt(1))).rejects.toMatchObject({ code: 'TG_WHATSAPP_TOKEN_REFUSED', permanent: true, message: expect.stringContaining('(code 190') });
    expect(await instance.health!()).toMatchObject({ ok: false, details: { problem: 'WhatsApp refused the access token', phone_number_id: wa.phoneNumberId, api_version: 'v26.0' } });
    expect(JSON.stringify(await instance.health!())).not.toContain('revoked');
    expect(ctx.rawLog()).not.toContain('EAAG-revoked-token-0123456789');
  });

  it('a reply cut off by WhatsApp’s trouble resumes with what was not sent, and is then done', async () => {
    wa = await startWhatsApp();
    wa.openWindow(ANN);
    const { ctx, instance } = await connector();
    const thread = await ctx.threads.attach(ANN, []);
    const event = messageCreated({ threadId: thread.threadId, text: `${'a'.repeat(3_000)}\n\n${'b'.repeat(3_000)}` });
    // The reply's second message fails once (WhatsApp's code 1: "An unknown error occurred").
    wa.failures.push({ match: /\/messages$/, status: 500, error: { message: 'An unknown error occurred', code: 1 }, times: 1, skip: 1 });
    await expect(instance.deliver(event, thread, attempt(1))).rejects.toMatchObject({ code: 'TG_WHATSAPP_UNAVAILABLE' });
    expect(wa.sentTo(ANN).map((m) => m.body![0])).toEqual(['a']);
    const result = await instance.deliver(event, thread, attempt(2));
    expect(wa.sentTo(ANN).map((m) => m.body![0])).toEqual(['a', 'b']);
    expect(result).toEqual({ externalId: wa.sentTo(ANN)[0]!.wamid });
    expect(await instance.deliver(event, thread, attempt(3))).toEqual(result);
    expect(wa.sentTo(ANN)).toHaveLength(2);
  });

  it('sends an agent’s image as an image, and names a file of a type WhatsApp does not take under the text', async () => {
    wa = await startWhatsApp();
    wa.openWindow(ANN);
    const png = Buffer.from('\x89PNG\r\n\x1a\n tiny image');
    const image = imageAttachment('https://files.platform.example/photo.png');
    const { ctx, instance } = await connector({}, { [image.url]: { content: png, contentType: 'image/png' }, 'https://files.platform.example/tool.exe': { content: 'MZ', contentType: 'application/x-msdownload' } });
    const thread = await ctx.threads.attach(ANN, []);
    await instance.deliver(messageCreated({ threadId: thread.threadId, text: 'See the photo.', files: [image, fileAttachment('tool.exe')] }), thread, attempt(1));
    expect(wa.sentTo(ANN).map((m) => [m.type, m.body ?? m.mediaId])).toEqual([
      ['text', 'See the photo.\n\n[attachment not sent: tool.exe — WhatsApp refused it (code 131053)]'],
      ['image', expect.stringMatching(/^\d+$/)],
    ]);
    expect(wa.store.media.get(wa.sentTo(ANN)[1]!.mediaId!)!.content.equals(png)).toBe(true);
  });

  it('outside the window sends the template once, not again until the customer writes; their message opens the way again', async () => {
    wa = await startWhatsApp();
    const { ctx, instance } = await connector({ template: { name: 'reopen_conversation', language: 'en_US' } });
    const thread = await ctx.threads.attach(ANN, []);
    const reply = (text: string) => instance.deliver(messageCreated({ threadId: thread.threadId, text }), thread, attempt(1));
    expect(await reply('One')).toMatchObject({ skipped: expect.stringContaining('was sent instead'), externalId: wa.sentTo(ANN)[0]!.wamid });
    expect(await reply('Two')).toMatchObject({ skipped: expect.stringContaining('is still unanswered') });
    expect(wa.sentTo(ANN).map((m) => m.type)).toEqual(['template']);
    // The customer wrote (the connector keeps when, with their message) but the window is still closed at WhatsApp.
    await ctx.state.set(`inbound:${ANN}`, Date.now() + 1);
    expect(await reply('Three')).toMatchObject({ skipped: expect.stringContaining('was sent instead') });
    expect(wa.sentTo(ANN).map((m) => m.type)).toEqual(['template', 'template']);
  });

  it('prunes the progress of replies whose event is older than the cut-off, and only those', async () => {
    wa = await startWhatsApp();
    const { ctx } = await connector();
    const at = (iso: string) => progressKey(messageCreated({ threadId: 'whatsapp:x', text: 'x', createdAt: iso, messageId: `00000000-0000-4000-8000-00000000000${iso[6]}` }));
    for (const iso of ['2026-09-01T00:00:00Z', '2026-10-01T00:00:00Z', '2026-11-20T00:00:00Z']) await ctx.state.set(at(iso), { files: [], sent: ['w'] });
    expect(await pruneReplyProgress(ctx, Date.parse('2026-10-30T00:00:00Z'))).toBe(2);
    expect(await ctx.state.keys('reply:')).toEqual([at('2026-11-20T00:00:00Z')]);
  });
});
