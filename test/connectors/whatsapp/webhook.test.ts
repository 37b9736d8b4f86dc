/**
 * The webhook route in a recording context (threadgate/testing), with the
 * counterpart as the Graph API for media: the verification's refusals; the
 * signature checked before anything is read; what each message type becomes
 * (text, location, contacts, a tapped button as text; a reaction and an
 * unsupported message recorded as skipped); a change for another phone
 * number passed over; statuses recorded as receipts (an unknown one passed
 * over); media not handed out or over the limit named as not kept, and with
 * keep: false only named; the customer's wa_id from their contact.
 */
import { createHmac } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import whatsappConnector from '../../../connectors/whatsapp/index.ts';
import { recordingContext, type RecordingContext } from '../../../src/connector/testing/index.ts';
import { startWhatsApp, type TestWhatsApp } from '../../support/whatsapp/whatsapp.ts';

let wa: TestWhatsApp;
afterEach(() => wa?.close());

async function connector(extra: Record<string, unknown> = {}): Promise<RecordingContext> {
  wa = await startWhatsApp();
  const ctx = recordingContext({ name: 'whatsapp' });
  await whatsappConnector.create(whatsappConnector.configSchema.parse(wa.settings(extra)), ctx);
  return ctx;
}

/** POSTs a notification with `value` for the number (or `phoneNumberId`), signed with the app secret. */
function notify(ctx: RecordingContext, value: Record<string, unknown>, phoneNumberId = wa.phoneNumberId) {
  const raw = JSON.stringify({ object: 'whatsapp_business_account', entry: [{ id: '1', changes: [{ field: 'messages', value: { messaging_product: 'whatsapp', metadata: { phone_number_id: phoneNumberId }, ...value } }] }] });
  return ctx.request('POST', '/webhook', { body: raw, headers: { 'x-hub-signature-256': `sha256=${createHmac('sha256', wa.appSecret).update(raw).digest('hex')}` } });
}
const message = (id: string, type: string, part: unknown, from = '4915100000001') => ({ contacts: [{ profile: { name: 'Ann' }, wa_id: from }], messages: [{ from, id, timestamp: '1764230400', type, [type]: part }] });

describe('the WhatsApp webhook route', () => {
  it('refuses a verification with another mode, another token or no challenge (403)', async () => {
    const ctx = await connector();
    const verify = (query: Record<string, string>) => ctx.request('GET', '/webhook', { query });
    expect(await verify({ 'hub.mode': 'unsubscribe', 'hub.verify_token': wa.verifyToken, 'hub.challenge': '1' })).toMatchObject({ status: 403 });
    expect(await verify({ 'hub.mode': 'subscribe', 'hub.verify_token': `${wa.verifyToken}x`, 'hub.challenge': '1' })).toMatchObject({ status: 403 });
    expect(await verify({ 'hub.mode': 'subscribe', 'hub.verify_token': wa.verifyToken })).toMatchObject({ status: 403 });
    expect(await verify({ 'hub.mode': 'subscribe', 'hub.verify_token': wa.verifyToken, 'hub.challenge': '1158201444' })).toEqual({ status: 200, body: '1158201444', headers: { 'content-type': 'text/plain; charset=utf-8' } });
  });

  it('checks the signature before reading anything: unsigned, wrongly signed and signed non-JSON are refused, nothing submitted', async () => {
    const ctx = await connector();
    const raw = JSON.stringify({ object: 'whatsapp_business_account', entry: [] });
    expect(await ctx.request('POST', '/webhook', { body: raw })).toMatchObject({ status: 401, body: { code: 'TG_SIGNATURE_INVALID' } });
    expect(await ctx.request('POST', '/webhook', { body: raw, headers: { 'x-hub-signature-256': `sha256=${'0'.repeat(64)}` } })).toMatchObject({ status: 401 });
    const signed = (text: string) => ({ 'x-hub-signature-256': `sha256=${createHmac('sha256', wa.appSecret).update(text).digest('hex')}` });
    expect(await ctx.request('POST', '/webhook', { body: '{"entry"', headers: signed('{"entry"') })).toMatchObject({ status: 400, body: { code: 'TG_REQUEST_INVALID' } });
    const bad = JSON.stringify({ object: 'whatsapp_business_account', entry: [{ changes: [{ field: 'messages', value: { messages: [] } }] }] });
    expect(await ctx.request('POST', '/webhook', { body: bad, headers: signed(bad) })).toMatchObject({ status: 400, body: { message: expect.stringContaining('entry.0.changes.0.value.metadata') } });
    expect(ctx.submits).toEqual([]);
    expect(ctx.rawLog()).not.toContain(wa.appSecret);
  });

  it('posts text, a location, contacts and a tapped button as text; skips a reaction and an unsupported message', async () => {
    const ctx = await connector();
    await notify(ctx, message('wamid.1', 'text', { body: ' Hello ' }));
    await notify(ctx, message('wamid.2', 'location', { latitude: 52.52, longitude: 13.405, name: 'Shop', address: 'Main St 1' }));
    await notify(ctx, message('wamid.3', 'contacts', [{ name: { formatted_name: 'Bob' }, phones: [{ phone: '+49 30 1234' }], emails: [{ email: 'bob@example.test' }] }]));
    await notify(ctx, message('wamid.4', 'interactive', { type: 'button_reply', button_reply: { id: 'yes', title: 'Yes, please' } }));
    await notify(ctx, message('wamid.5', 'reaction', { message_id: 'wamid.X', emoji: '👍' }));
    const answer = await notify(ctx, { ...message('wamid.6', 'unsupported', {}), messages: [{ from: '4915100000001', id: 'wamid.6', type: 'unsupported', errors: [{ code: 131051, title: 'Message type unknown' }] }] });
    expect(answer).toMatchObject({ status: 200, body: { submitted: 0, skipped: 1 } });
    expect(ctx.submits.map((s) => s.body)).toEqual(['Hello', '[location: Shop, Main St 1] 52.52, 13.405', '[contact: Bob, +49 30 1234, bob@example.test]', 'Yes, please']);
    expect(ctx.submits[0]).toMatchObject({ threadKey: '4915100000001', messageId: 'wamid.1', senderId: '4915100000001', senderName: 'Ann' });
    expect(ctx.skips).toEqual([
      { messageId: 'wamid.5', senderId: '4915100000001', code: 'TG_WHATSAPP_REACTION', reason: 'a reaction to a message, not a message', summary: '👍 on wamid.X' },
      { messageId: 'wamid.6', senderId: '4915100000001', code: 'TG_WHATSAPP_UNSUPPORTED', reason: 'WhatsApp messages of type "unsupported" are not posted (WhatsApp: 131051 Message type unknown)', summary: 'a WhatsApp unsupported message' },
    ]);
  });

  it('passes over a change for another phone number, and takes the wa_id of the message’s contact', async () => {
    const ctx = await connector();
    expect(await notify(ctx, message('wamid.7', 'text', { body: 'not ours' }), '999999999')).toMatchObject({ status: 200, body: { other_numbers: 1, submitted: 0 } });
    // Meta may write `from` differently from the wa_id (a number with and without its mobile prefix).
    await notify(ctx, { contacts: [{ profile: { name: 'Bia' }, wa_id: '5511987654321' }], messages: [{ from: '551187654321', id: 'wamid.8', type: 'text', text: { body: 'Oi' } }] });
    expect(ctx.submits.map((s) => [s.threadKey, s.body])).toEqual([['5511987654321', 'Oi']]);
  });

  it('records statuses as receipts at their time, a failure with its reason; an unknown status is passed over', async () => {
    const ctx = await connector();
    const status = (id: string, s: string, extra: Record<string, unknown> = {}) => ({ id, status: s, timestamp: '1764230460', recipient_id: '4915100000001', ...extra });
    const answer = await notify(ctx, { statuses: [status('wamid.A', 'read'), status('wamid.A', 'delivered'), status('wamid.B', 'deleted'), status('wamid.C', 'failed', { errors: [{ code: 131047, title: 'Re-engagement message', error_data: { details: 'More than 24 hours.' } }] })] });
    expect(answer).toMatchObject({ status: 200, body: { receipts: 3 } });
    expect(ctx.receiptOf('wamid.A')).toEqual({ externalId: 'wamid.A', status: 'read', at: new Date(1_764_230_460_000) });
    expect(ctx.receiptOf('wamid.C')).toMatchObject({ status: 'failed', reason: '131047 Re-engagement message: More than 24 hours.' });
    expect(ctx.receiptOf('wamid.B')).toBeUndefined();
    expect(ctx.submits).toEqual([]);
  });

  it('answers 503 with WhatsApp’s code when a media download may pass, submitting nothing; sent again, the message goes', async () => {
    const ctx = await connector();
    const pdf = wa.store.addMedia(Buffer.from('%PDF-1.4 x'), 'application/pdf', 'customer', 'a.pdf');
    wa.failures.push({ match: new RegExp(`^GET /v26\\.0/${pdf.id}$`), status: 500, error: { message: 'An unknown error occurred', code: 131000 }, times: 1 });
    const body = message('wamid.12', 'document', { id: pdf.id, mime_type: 'application/pdf', filename: 'a.pdf' });
    expect(await notify(ctx, body)).toMatchObject({ status: 503, body: { code: 'TG_WHATSAPP_UNAVAILABLE' } });
    expect(ctx.submits).toEqual([]);
    expect(await notify(ctx, body)).toMatchObject({ status: 200, body: { submitted: 1 } });
    expect(ctx.submits.map((s) => s.body)).toEqual(['[attachment: a.pdf, 10 B] https://gw.example.test/files/file-1?e=0&s=recorded']);
  });

  it('names media WhatsApp does not hand out, or over the limit, as not kept; with keep: false only names it', async () => {
    const ctx = await connector({ attachments: { max_file_bytes: 1_000 } });
    const big = wa.store.addMedia(Buffer.alloc(2_000), 'video/mp4', 'customer');
    await notify(ctx, message('wamid.9', 'video', { id: big.id, mime_type: 'video/mp4' }));
    await notify(ctx, message('wamid.10', 'image', { id: '777', mime_type: 'image/jpeg', caption: 'Look' }));
    expect(ctx.submits.map((s) => s.body)).toEqual(['[attachment: video.mp4, 2 KB — not kept: over the 1000 B limit per file]', 'Look\n\n[attachment: image.jpg — not kept: WhatsApp did not hand it out]']);
    expect(wa.mediaDownloads).toEqual([]);

    const unkept = recordingContext({ name: 'whatsapp' });
    await whatsappConnector.create(whatsappConnector.configSchema.parse(wa.settings({ attachments: { keep: false } })), unkept);
    await notify(unkept, message('wamid.11', 'document', { id: big.id, mime_type: 'application/pdf', filename: 'scan.pdf' }));
    expect(unkept.submits.map((s) => s.body)).toEqual(['[attachment: scan.pdf]']);
    expect(wa.requests.filter((r) => r.path.endsWith(big.id))).toHaveLength(1); // only the first connector asked
  });
});
