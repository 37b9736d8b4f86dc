/**
 * The WhatsApp connector in a real gateway, against the WhatsApp counterpart
 * and the sandbox as the platform: Meta's verification of the callback URL
 * (right and wrong token); a customer's text and document reach the platform,
 * the document as a signed link that downloads byte for byte; a notification
 * with a bad signature is refused 401 and submits nothing; an agent's reply
 * (with a file) goes out once, though the platform's webhook comes again and
 * an operator replays it; an agent's image goes as an image, and a file over
 * the limit is named under the reply instead.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signedHeaders } from '../../../src/platform/signature.ts';
import { until } from '../../support/wait.ts';
import { admin, agentSays, ANN, ARRIVES_MS, callbackUrl, CONNECTOR, customerTexts, settled, waGateway, whatsapp } from './support.ts';
import { expectFileLine } from '../../support/file-line.ts';

describe('WhatsApp connector, end to end', () => {
  it('answers Meta’s verification with the challenge for the verify token, 403 for another', async () => {
    const wa = await whatsapp();
    const tg = await waGateway(wa, { subscribe: false });
    const wrong = await wa.verify(callbackUrl(tg), 'not-the-verify-token');
    expect(wrong.status).toBe(403);
    expect(JSON.parse(wrong.body)).toMatchObject({ code: 'TG_WHATSAPP_VERIFY_REFUSED' });
    const right = await wa.subscribe(callbackUrl(tg));
    expect(right).toEqual({ status: 200, body: right.challenge, challenge: right.challenge });
  });

  it('a customer’s text and document reach the platform, the document as a signed link that downloads byte for byte', async () => {
    const wa = await whatsapp();
    const tg = await waGateway(wa);
    expect((await wa.customerSays(ANN, 'Hello, my order 1234 is late.', { name: 'Ann Customer' })).pushed.status).toBe(200);
    const pdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(20_000), Buffer.from([0, 0, 255])]);
    const { mediaId, pushed } = await wa.customerSendsDocument(ANN, { filename: 'invoice.pdf', contentType: 'application/pdf', content: pdf, caption: 'The invoice' });
    expect(pushed.status).toBe(200);

    const [first, second] = await customerTexts(tg, ANN, 2);
    expect(first).toBe('Hello, my order 1234 is late.');
    const lines = second!.split('\n');
    expect(lines.slice(0, 2)).toEqual(['The invoice', '']);
    await expectFileLine(lines[2]!, '[attachment: invoice.pdf, 20 KB] <link>', pdf, 'application/pdf');
    // Downloaded once, from the media host, with the token (it serves nothing without).
    expect(wa.mediaDownloads).toEqual([mediaId]);
    const thread = await tg.gateway.store.read.threads.byKey(CONNECTOR, ANN);
    const visitor = (await tg.sandbox.call('GET', `/_sandbox/chats/${thread!.chatId}`)).body.visitor;
    expect(JSON.stringify(visitor)).toContain('Ann Customer');
  });

  it('a notification with a bad signature is refused 401 and submits nothing', async () => {
    const wa = await whatsapp();
    const tg = await waGateway(wa);
    const { pushed } = await wa.customerSays(ANN, 'Forged', { secret: 'not-the-app-secret-0000' });
    expect(pushed.status).toBe(401);
    expect(JSON.parse(pushed.answer)).toMatchObject({ code: 'TG_SIGNATURE_INVALID' });
    expect(pushed.answer).not.toContain(wa.appSecret);
    expect(await tg.gateway.store.read.sql.get(`select count(*) as n from inbound_messages`)).toEqual({ n: 0 });
    expect(await tg.gateway.store.read.threads.byKey(CONNECTOR, ANN)).toBeUndefined();
  });

  it('an agent’s reply with a file goes out once, though the platform sends its webhook again and an operator replays it', { timeout: 30_000 }, async () => {
    const wa = await whatsapp({ statusFlow: [] });
    const tg = await waGateway(wa);
    await wa.customerSays(ANN, 'Where is my parcel?');
    await customerTexts(tg, ANN, 1);
    const form = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(3_000)]);
    await agentSays(tg, ANN, 'It ships today. The form is attached.', [{ type: 'file', name: 'returns.pdf', content_type: 'application/pdf', content_base64: form.toString('base64') }]);
    const [delivery] = await settled(tg, 1);
    expect(delivery).toMatchObject({ status: 'delivered', error: null });

    const sent = wa.sentTo(ANN);
    expect(sent.map((m) => [m.type, m.body ?? m.filename])).toEqual([['text', 'It ships today. The form is attached.'], ['document', 'returns.pdf']]);
    expect(wa.store.media.get(sent[1]!.mediaId!)!.content.equals(form)).toBe(true);
    expect(delivery!.external_id).toBe(sent[0]!.wamid);

    // The platform's webhook once more (it got no answer in time, say): a duplicate, nothing sent.
    const stored = (await tg.gateway.store.read.deliveries.byId(delivery!.id))!;
    const secret = (await tg.gateway.store.read.registrations.get(CONNECTOR))!.secret;
    const again = await tg.call('POST', `/webhooks/${CONNECTOR}`, stored.body, signedHeaders(secret, stored.body));
    expect(again.body).toMatchObject({ duplicate: true });
    // An operator's replay runs deliver again (attempt 2 of the same event): its progress says it is done.
    expect((await admin(tg, 'POST', `/deliveries/${delivery!.id}/replay`)).status).toBe(202);
    await until(async () => (await admin(tg, 'GET', `/deliveries/${delivery!.id}`)).body.attempts.length === 2, ARRIVES_MS, 'the replay’s attempt');
    await until(async () => (await admin(tg, 'GET', `/deliveries/${delivery!.id}`)).body.status === 'delivered', ARRIVES_MS, 'the replay to end');
    const detail = (await admin(tg, 'GET', `/deliveries/${delivery!.id}`)).body;
    expect(detail.attempts.map((a: { outcome: string; external_id: string }) => [a.outcome, a.external_id])).toEqual([['delivered', sent[0]!.wamid], ['delivered', sent[0]!.wamid]]);
    expect(wa.sentTo(ANN)).toHaveLength(2);
    expect(wa.requests.filter((r) => r.path.endsWith('/media') && r.method === 'POST')).toHaveLength(1);
  });

  it('an agent’s image goes as an image; a file over max_file_bytes is not sent but named under the reply', async () => {
    const wa = await whatsapp({ statusFlow: [] });
    const tg = await waGateway(wa, { extra: { attachments: { max_file_bytes: 4_096 } } });
    await wa.customerSays(ANN, 'Send me the photo and the manual.');
    await customerTexts(tg, ANN, 1);
    const png = Buffer.concat([Buffer.from('\x89PNG\r\n\x1a\n'), randomBytes(1_000)]);
    await agentSays(tg, ANN, 'Here they are.', [
      { type: 'image', name: 'photo.png', content_type: 'image/png', content_base64: png.toString('base64') },
      { type: 'file', name: 'manual.pdf', content_type: 'application/pdf', content_base64: randomBytes(10_000).toString('base64') },
    ]);
    const [delivery] = await settled(tg, 1);
    expect(delivery!.status).toBe('delivered');
    const sent = wa.sentTo(ANN);
    expect(sent.map((m) => [m.type, m.body])).toEqual([['text', 'Here they are.\n\n[attachment not sent: manual.pdf — over the 4 KB limit per file]'], ['image', undefined]]);
    expect(wa.store.media.get(sent[1]!.mediaId!)!.content.equals(png)).toBe(true);
  });
});
