/**
 * The Telegram counterpart refuses what Telegram refuses, in Telegram's
 * shape, and hands out updates and files as Telegram does — so the
 * connector's tests against it mean something: a wrong token (401), an
 * unknown method (404); parameters by query, form, JSON and multipart;
 * getUpdates' offset, limit, long poll and its two 409s; sendMessage's
 * length, empty text, unknown chat and blocked bot; getFile's cap and the
 * download path; uploads; webhooks (HTTPS only, the secret header, the
 * last error); flood control with `retry_after` in the body.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTelegram, type TestTelegram } from '../../support/telegram/telegram.ts';
import { startWebhookRelay } from '../../support/telegram/webhook-relay.ts';

type Way = 'json' | 'query' | 'form' | 'multipart';

let tg: TestTelegram;
beforeEach(async () => {
  tg = await startTelegram({ limits: { group: { max: 2, windowMs: 60_000 } }, maxDownloadBytes: 1_000 });
});
afterEach(() => tg.close());

async function ask(method: string, params: Record<string, unknown> = {}, options: { way?: Way; token?: string; signal?: AbortSignal } = {}) {
  const base = `${tg.url}/bot${options.token ?? tg.token}/${method}`;
  const text = Object.fromEntries(Object.entries(params).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
  const way = options.way ?? 'json';
  const init: RequestInit =
    way === 'json' ? { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(params) }
    : way === 'form' ? { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(text).toString() }
    : way === 'multipart' ? { method: 'POST', body: formOf(params) }
    : { method: 'GET' };
  const url = way === 'query' ? `${base}?${new URLSearchParams(text)}` : base;
  const res = await fetch(url, { ...init, ...(options.signal ? { signal: options.signal } : {}) });
  return { status: res.status, headers: res.headers, json: (await res.json()) as any };
}

function formOf(params: Record<string, unknown>): FormData {
  const form = new FormData();
  for (const [key, value] of Object.entries(params)) {
    if (value instanceof Blob) form.set(key, value, key === 'photo' ? 'p.png' : 'file.bin');
    else form.set(key, typeof value === 'string' ? value : JSON.stringify(value));
  }
  return form;
}

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);

describe('the Telegram counterpart', () => {
  it('refuses a wrong token with 401 and an unknown method with 404, in Telegram’s body; method names are case-insensitive', async () => {
    expect(await ask('getMe', {}, { token: `${tg.bot.id}:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA` })).toMatchObject({ status: 401, json: { ok: false, error_code: 401, description: 'Unauthorized' } });
    expect(await ask('getMoon')).toMatchObject({ status: 404, json: { ok: false, error_code: 404, description: 'Not Found' } });
    expect(await ask('GETME')).toMatchObject({ status: 200, json: { ok: true, result: { id: tg.bot.id, is_bot: true, username: 'threadgate_test_bot' } } });
  });

  it('takes parameters by query string, form, JSON and multipart alike', async () => {
    const ann = tg.newCustomer({ first_name: 'Ann' });
    for (const way of ['json', 'query', 'form', 'multipart'] as const) {
      expect(await ask('sendMessage', { chat_id: ann.id, text: `by ${way}` }, { way })).toMatchObject({ status: 200, json: { ok: true, result: { text: `by ${way}`, chat: { id: ann.id } } } });
    }
    expect(tg.sentTo(ann.id).map((m) => m.text)).toEqual(['by json', 'by query', 'by form', 'by multipart']);
  });

  it('getUpdates: a higher offset forgets earlier updates, limit caps, a long poll waits for an update or its timeout', async () => {
    const ann = tg.newCustomer();
    for (const text of ['one', 'two', 'three']) tg.customerSays(ann.id, text);
    const all = (await ask('getUpdates', { limit: 2 })).json.result as { update_id: number; message: { text: string } }[];
    expect(all.map((u) => u.message.text)).toEqual(['one', 'two']);
    // Not confirmed yet: asked again, the same come back.
    expect((await ask('getUpdates')).json.result).toHaveLength(3);
    const rest = (await ask('getUpdates', { offset: all[1]!.update_id + 1 })).json.result as { message: { text: string } }[];
    expect(rest.map((u) => u.message.text)).toEqual(['three']);
    expect((await ask('getUpdates')).json.result).toHaveLength(1);

    const last = (rest[0] as unknown as { update_id: number }).update_id;
    let started = Date.now();
    expect((await ask('getUpdates', { offset: last + 1, timeout: 1 })).json.result).toEqual([]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    started = Date.now();
    const waiting = ask('getUpdates', { offset: last + 1, timeout: 10 });
    setTimeout(() => tg.customerSays(ann.id, 'four'), 200);
    expect(((await waiting).json.result as { message: { text: string } }[]).map((u) => u.message.text)).toEqual(['four']);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('getUpdates: a second request ends the first with 409, and none is taken while a webhook is set', async () => {
    const first = ask('getUpdates', { timeout: 10 });
    await new Promise((r) => setTimeout(r, 100));
    const second = ask('getUpdates', { timeout: 0 });
    expect(await first).toMatchObject({ status: 409, json: { error_code: 409, description: 'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running' } });
    expect((await second).status).toBe(200);
    const relay = await startWebhookRelay();
    try {
      expect(await ask('setWebhook', { url: `${relay.url}/hook` })).toMatchObject({ status: 400, json: { description: 'Bad Request: bad webhook: An HTTPS URL must be provided for webhook' } });
      expect(await ask('setWebhook', { url: 'https://example.com:9999/hook' })).toMatchObject({ status: 400, json: { description: 'Bad Request: bad webhook: Webhook can be set up only on ports 80, 88, 443 or 8443' } });
      expect(await ask('setWebhook', { url: 'https://example.com/hook', secret_token: 'not allowed!' })).toMatchObject({ status: 400 });
      expect(await ask('setWebhook', { url: 'https://example.com/hook' })).toMatchObject({ status: 200, json: { result: true, description: 'Webhook was set' } });
      expect(await ask('getUpdates')).toMatchObject({ status: 409, json: { description: expect.stringContaining("can't use getUpdates method while webhook is active") } });
      expect(await ask('deleteWebhook')).toMatchObject({ status: 200, json: { result: true, description: 'Webhook was deleted' } });
      expect((await ask('getUpdates')).status).toBe(200);
    } finally {
      await relay.close();
    }
  });

  it('posts updates to an HTTP webhook (a local Bot API server’s way) with the secret header, and keeps the last error', async () => {
    const local = await startTelegram({ allowHttpWebhook: true, webhookRetryMs: 50 });
    const relay = await startWebhookRelay();
    try {
      const ann = local.newCustomer();
      const set = await fetch(`${local.url}/bot${local.token}/setWebhook?url=${encodeURIComponent(`${relay.url}/hook`)}&secret_token=s3cr3t-token_16chars`);
      expect(set.status).toBe(200);
      local.customerSays(ann.id, 'hello');
      await expectSoon(() => local.webhookPosts.length >= 2);
      expect(local.webhookPosts[0]).toMatchObject({ status: 502, secret: 's3cr3t-token_16chars' });
      const info = (await (await fetch(`${local.url}/bot${local.token}/getWebhookInfo`)).json()) as { result: unknown };
      expect(info.result).toMatchObject({ url: `${relay.url}/hook`, pending_update_count: 1, last_error_message: expect.stringContaining('Wrong response from the webhook: 502') });
    } finally {
      await relay.close();
      await local.close();
    }
  });

  it('sendMessage: 4096 characters pass, 4097 are too long; empty text, an unknown chat and a blocked bot are refused', async () => {
    const ann = tg.newCustomer();
    expect((await ask('sendMessage', { chat_id: ann.id, text: 'x'.repeat(4096) })).status).toBe(200);
    expect(await ask('sendMessage', { chat_id: ann.id, text: 'x'.repeat(4097) })).toMatchObject({ status: 400, json: { description: 'Bad Request: message is too long' } });
    expect(await ask('sendMessage', { chat_id: ann.id, text: '  ' })).toMatchObject({ status: 400, json: { description: 'Bad Request: message text is empty' } });
    expect(await ask('sendMessage', { chat_id: 42, text: 'hi' })).toMatchObject({ status: 400, json: { description: 'Bad Request: chat not found' } });
    tg.blockBot(ann.id);
    expect(await ask('sendMessage', { chat_id: ann.id, text: 'hi' })).toMatchObject({ status: 403, json: { error_code: 403, description: 'Forbidden: bot was blocked by the user' } });
  });

  it('getFile answers a file_path to download from /file/bot<token>/…; past the download cap it is "file is too big"', async () => {
    const ann = tg.newCustomer();
    tg.customerSendsDocument(ann.id, { filename: 'a.pdf', contentType: 'application/pdf', content: Buffer.from('%PDF small') });
    tg.customerSendsDocument(ann.id, { filename: 'big.pdf', contentType: 'application/pdf', content: Buffer.alloc(1_001) });
    const [small, big] = ((await ask('getUpdates')).json.result as { message: { document: { file_id: string } } }[]).map((u) => u.message.document.file_id);
    const file = (await ask('getFile', { file_id: small })).json.result as { file_path: string; file_size: number };
    expect(file).toMatchObject({ file_size: 10, file_path: expect.stringMatching(/^documents\/file_\d+\.pdf$/) });
    expect(Buffer.from(await (await fetch(`${tg.url}/file/bot${tg.token}/${file.file_path}`)).arrayBuffer()).toString()).toBe('%PDF small');
    expect((await fetch(`${tg.url}/file/bot${tg.token}/documents/nothing.pdf`)).status).toBe(404);
    expect(await ask('getFile', { file_id: big })).toMatchObject({ status: 400, json: { description: 'Bad Request: file is too big' } });
    expect(await ask('getFile', { file_id: 'nope' })).toMatchObject({ status: 400, json: { description: 'Bad Request: invalid file_id' } });
  });

  it('sendDocument and sendPhoto take multipart uploads; a photo that is no image, or no file at all, is refused', async () => {
    const ann = tg.newCustomer();
    const doc = await ask('sendDocument', { chat_id: ann.id, document: new Blob([Buffer.from('bytes')], { type: 'text/plain' }) }, { way: 'multipart' });
    expect(doc).toMatchObject({ status: 200, json: { result: { document: { file_name: 'file.bin', file_size: 5 } } } });
    expect((await ask('sendPhoto', { chat_id: ann.id, photo: new Blob([PNG], { type: 'image/png' }) }, { way: 'multipart' })).json.result.photo).toHaveLength(3);
    expect(await ask('sendPhoto', { chat_id: ann.id, photo: new Blob([Buffer.from('text')]) }, { way: 'multipart' })).toMatchObject({ status: 400, json: { description: 'Bad Request: IMAGE_PROCESS_FAILED' } });
    expect(await ask('sendDocument', { chat_id: ann.id }, { way: 'multipart' })).toMatchObject({ status: 400, json: { description: 'Bad Request: there is no document in the request' } });
    expect(tg.sentTo(ann.id).map((m) => [m.kind, m.file?.content.length])).toEqual([['document', 5], ['photo', PNG.length]]);
  });

  it('flood control: 429 with parameters.retry_after in the body (no header), ordered by a test or past a group’s limit', async () => {
    const ann = tg.newCustomer();
    tg.flood('sendMessage', 3);
    const refused = await ask('sendMessage', { chat_id: ann.id, text: 'hi' });
    expect(refused).toMatchObject({ status: 429, json: { ok: false, error_code: 429, description: 'Too Many Requests: retry after 3', parameters: { retry_after: 3 } } });
    expect(refused.headers.get('retry-after')).toBeNull();
    expect((await ask('sendMessage', { chat_id: ann.id, text: 'hi' })).status).toBe(200);
    const group = tg.newGroup('Team');
    expect((await ask('sendMessage', { chat_id: group.id, text: '1' })).status).toBe(200);
    expect((await ask('sendMessage', { chat_id: group.id, text: '2' })).status).toBe(200);
    expect(await ask('sendMessage', { chat_id: group.id, text: '3' })).toMatchObject({ status: 429, json: { parameters: { retry_after: 60 } } });
  });
});

async function expectSoon(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}
