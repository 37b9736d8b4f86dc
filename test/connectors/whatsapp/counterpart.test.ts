/**
 * The WhatsApp counterpart refuses what the Cloud API refuses, in the Graph
 * API's error shape, so the connector's tests against it mean something: a
 * missing or wrong token (104, 190), a version the API does not have, a
 * wrong or missing parameter (100), a text body over 4,096 characters, a
 * free-form message outside the customer's 24-hour window (131047) while a
 * template goes, the throughput and pair rate limits (130429, 131056), media
 * only with the token and only of WhatsApp's types; and it pushes
 * notifications signed as Meta does, after the verification handshake.
 */
import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { startWhatsApp, type TestWhatsApp } from '../../support/whatsapp/whatsapp.ts';

let wa: TestWhatsApp;
afterEach(() => wa?.close());

async function graph(path: string, options: { method?: string; token?: string | null; json?: unknown; form?: FormData } = {}) {
  const headers: Record<string, string> = {};
  if (options.token !== null) headers.authorization = `Bearer ${options.token ?? wa.accessToken}`;
  if (options.json !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${wa.url}${path}`, { method: options.method ?? 'GET', headers, body: options.form ?? (options.json === undefined ? undefined : JSON.stringify(options.json)) });
  const text = await res.text();
  return { status: res.status, json: text.startsWith('{') ? JSON.parse(text) : text };
}
const send = (message: Record<string, unknown>, token?: string | null) =>
  graph(`/v26.0/${wa.phoneNumberId}/messages`, { method: 'POST', json: { messaging_product: 'whatsapp', ...message }, ...(token === undefined ? {} : { token }) });
const text = (to: string, body: string) => ({ to, type: 'text', text: { body } });

describe('the WhatsApp counterpart', () => {
  it('wants the access token as Bearer (104 without, 401/190 another) and a version the Graph API has', async () => {
    wa = await startWhatsApp();
    wa.openWindow('4915100000001');
    expect(await send(text('4915100000001', 'hi'), null)).toMatchObject({ status: 400, json: { error: { code: 104, type: 'OAuthException' } } });
    expect(await send(text('4915100000001', 'hi'), 'EAAGnot-the-token')).toMatchObject({ status: 401, json: { error: { code: 190, message: expect.stringContaining('Invalid OAuth access token') } } });
    expect(await graph(`/v99.0/${wa.phoneNumberId}/messages`, { method: 'POST', json: {} })).toMatchObject({ status: 400, json: { error: { code: 2500 } } });
    expect(await graph('/v26.0/999/messages', { method: 'POST', json: {} })).toMatchObject({ status: 400, json: { error: { code: 100, error_subcode: 33, type: 'GraphMethodException' } } });
    const ok = await send(text('4915100000001', 'hi'));
    expect(ok).toMatchObject({ status: 200, json: { messaging_product: 'whatsapp', contacts: [{ wa_id: '4915100000001' }], messages: [{ id: expect.stringMatching(/^wamid\./) }] } });
    expect(ok.json.error).toBeUndefined();
  });

  it('refuses a wrong parameter naming it, and a text body over 4,096 characters', async () => {
    wa = await startWhatsApp();
    wa.openWindow('4915100000002');
    const refusal = (details: RegExp) => ({ status: 400, json: { error: { code: 100, error_data: { details: expect.stringMatching(details) }, fbtrace_id: expect.any(String) } } });
    expect(await graph(`/v26.0/${wa.phoneNumberId}/messages`, { method: 'POST', json: { to: '4915100000002', text: { body: 'x' } } })).toMatchObject(refusal(/messaging_product/));
    expect(await send({ type: 'text', text: { body: 'x' } })).toMatchObject(refusal(/parameter to/));
    expect(await send({ to: '4915100000002', type: 'text', text: {} })).toMatchObject(refusal(/text\['body'\]/));
    expect(await send(text('4915100000002', 'x'.repeat(4_097)))).toMatchObject(refusal(/at most 4096/));
    expect((await send(text('4915100000002', 'x'.repeat(4_096)))).status).toBe(200);
    expect(await send({ to: '4915100000002', type: 'document', document: { id: '123', filename: 'a.pdf' } })).toMatchObject(refusal(/not a media id uploaded/));
  });

  it('outside the 24-hour window refuses free-form messages (131047) and takes an approved template', async () => {
    wa = await startWhatsApp();
    expect(await send(text('4915100000003', 'never wrote'))).toMatchObject({ status: 400, json: { error: { code: 131047, message: '(#131047) Re-engagement message' } } });
    wa.openWindow('4915100000003');
    expect((await send(text('4915100000003', 'within'))).status).toBe(200);
    wa.advanceWindow('4915100000003', 24);
    expect((await send(text('4915100000003', 'a day later'))).json.error.code).toBe(131047);
    const template = (name: string) => ({ to: '4915100000003', type: 'template', template: { name, language: { code: 'en_US' } } });
    expect(await send(template('reopen_conversation'))).toMatchObject({ status: 200, json: { messages: [{ message_status: 'accepted' }] } });
    expect(await send(template('no_such_template'))).toMatchObject({ status: 404, json: { error: { code: 132001 } } });
    expect(wa.sentTo('4915100000003').map((m) => m.type)).toEqual(['text', 'template']);
  });

  it('answers the throughput (130429) and pair rate (131056) limits a test sets', async () => {
    wa = await startWhatsApp({ limits: { throughput: { max: 3, windowMs: 60_000 }, pair: { max: 2, windowMs: 60_000 } } });
    for (const to of ['4915100000004', '4915100000005']) wa.openWindow(to);
    expect((await send(text('4915100000004', '1'))).status).toBe(200);
    expect((await send(text('4915100000004', '2'))).status).toBe(200);
    expect(await send(text('4915100000004', '3'))).toMatchObject({ status: 400, json: { error: { code: 131056 } } });
    expect((await send(text('4915100000005', '1'))).status).toBe(200);
    expect(await send(text('4915100000005', '2'))).toMatchObject({ status: 400, json: { error: { code: 130429, message: '(#130429) Rate limit hit' } } });
  });

  it('takes uploads of WhatsApp’s types and serves media from its host only with the token', async () => {
    wa = await startWhatsApp();
    const upload = (type: string, content: Buffer, filename: string) => {
      const form = new FormData();
      form.set('messaging_product', 'whatsapp');
      form.set('type', type);
      form.set('file', new Blob([new Uint8Array(content)], { type }), filename);
      return graph(`/v26.0/${wa.phoneNumberId}/media`, { method: 'POST', form });
    };
    const pdf = Buffer.from('%PDF-1.4 tiny');
    const uploaded = await upload('application/pdf', pdf, 'tiny.pdf');
    expect(uploaded).toMatchObject({ status: 200, json: { id: expect.stringMatching(/^\d+$/) } });
    expect(await upload('application/octet-stream', pdf, 'tiny.bin')).toMatchObject({ status: 400, json: { error: { code: 131053 } } });
    expect(await upload('image/jpeg', Buffer.alloc(5 * 1024 * 1024 + 1), 'big.jpg')).toMatchObject({ status: 400, json: { error: { code: 131053 } } });

    const info = await graph(`/v26.0/${uploaded.json.id}`);
    expect(info).toMatchObject({ status: 200, json: { messaging_product: 'whatsapp', mime_type: 'application/pdf', file_size: pdf.length, id: uploaded.json.id } });
    const url = new URL(info.json.url);
    expect(url.origin).toBe(wa.mediaHostUrl);
    expect((await fetch(url)).status).toBe(401);
    const download = await fetch(url, { headers: { authorization: `Bearer ${wa.accessToken}` } });
    expect([download.status, Buffer.from(await download.arrayBuffer()).equals(pdf)]).toEqual([200, true]);
    expect((await graph('/v26.0/1234567')).json.error).toMatchObject({ code: 100, error_subcode: 33 });
  });

  it('pushes notifications signed with the app secret, only to a callback that answered the verification', async () => {
    wa = await startWhatsApp();
    const seen: { query: string; signature?: string; body: string }[] = [];
    let answerChallenge = false;
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const url = new URL(req.url!, 'http://x');
        seen.push({ query: url.search, body, ...(req.headers['x-hub-signature-256'] ? { signature: String(req.headers['x-hub-signature-256']) } : {}) });
        if (req.method === 'GET') res.writeHead(answerChallenge ? 200 : 403).end(answerChallenge ? url.searchParams.get('hub.challenge') : 'no');
        else res.writeHead(200).end('{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const callback = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    await expect(wa.subscribe(callback)).rejects.toThrow('did not pass verification');
    await expect(wa.customerSays('4915100000006', 'hi')).rejects.toThrow('no callback URL is subscribed');
    answerChallenge = true;
    await wa.subscribe(callback);
    expect(new URLSearchParams(seen[1]!.query).get('hub.verify_token')).toBe(wa.verifyToken);
    const { wamid, pushed } = await wa.customerSays('4915100000006', 'Hello there', { name: 'Zoe' });
    const post = seen[2]!;
    expect(post.signature).toBe(`sha256=${createHmac('sha256', wa.appSecret).update(post.body).digest('hex')}`);
    expect(JSON.parse(post.body)).toMatchObject({
      object: 'whatsapp_business_account',
      entry: [{ changes: [{ field: 'messages', value: { metadata: { phone_number_id: wa.phoneNumberId }, contacts: [{ profile: { name: 'Zoe' }, wa_id: '4915100000006' }], messages: [{ id: wamid, from: '4915100000006', type: 'text', text: { body: 'Hello there' } }] } }] }],
    });
    expect(pushed.status).toBe(200);
  });
});
