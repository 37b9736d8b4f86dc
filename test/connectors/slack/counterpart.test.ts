/**
 * The Slack counterpart refuses what Slack refuses, in Slack's shapes, so
 * the connector's tests against it mean something: tokens (not_authed,
 * invalid_auth, token_revoked), chat.postMessage's refusals (HTTP 200 with
 * ok:false), a 429 with Retry-After past a method's limit, cursor pages of
 * history and replies (metadata only when asked), the external upload flow,
 * private files only with the bot token; and its event sender signs as
 * Slack signs, verifies the Request URL, and retries with X-Slack-Retry-Num.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { RequestVerifier } from '../../../connectors/slack/request-signature.ts';
import { startSlack, type TestSlack } from '../../support/slack/slack.ts';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const thing of open.splice(0).reverse()) await thing.close();
});

async function slack(options: Parameters<typeof startSlack>[0] = {}): Promise<TestSlack> {
  const started = await startSlack(options);
  open.push(started);
  return started;
}

async function call(s: TestSlack, method: string, args: Record<string, unknown>, token: string | null = s.bot.token, as: 'json' | 'form' = 'json') {
  const headers: Record<string, string> = token === null ? {} : { authorization: `Bearer ${token}` };
  const body = as === 'json' ? JSON.stringify(args) : new URLSearchParams(Object.entries(args).map(([k, v]): [string, string] => [k, typeof v === 'object' ? JSON.stringify(v) : String(v)])).toString();
  headers['content-type'] = as === 'json' ? 'application/json; charset=utf-8' : 'application/x-www-form-urlencoded';
  const res = await fetch(`${s.url}/${method}`, { method: 'POST', headers, body });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), json: (await res.json()) as Record<string, any> };
}

/** A Request URL for the sender: each request recorded; `answer` decides the status and body (and may wait). */
async function receiver(answer: (n: number, body: string) => Promise<{ status: number; body?: string }> | { status: number; body?: string }) {
  const requests: { headers: IncomingHttpHeaders; body: string }[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ headers: req.headers, body });
      void Promise.resolve(answer(requests.length, body)).then((a) => res.writeHead(a.status, { 'content-type': 'text/plain' }).end(a.body ?? ''), () => res.destroy());
    });
  });
  server.on('connection', (socket) => socket.unref());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const closer = { close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))) };
  open.push(closer);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`, requests };
}

describe('the Slack counterpart’s Web API', () => {
  it('wants a token: none is not_authed, a wrong one invalid_auth, a revoked one token_revoked; a form may carry it', async () => {
    const s = await slack();
    expect((await call(s, 'auth.test', {}, null)).json).toEqual({ ok: false, error: 'not_authed' });
    expect((await call(s, 'auth.test', {}, 'xoxb-1-wrong')).json).toEqual({ ok: false, error: 'invalid_auth' });
    expect((await call(s, 'auth.test', { token: s.bot.token }, null, 'form')).json).toMatchObject({ ok: true, user_id: s.bot.id, bot_id: s.bot.botId, team_id: s.ws.teamId, url: s.ws.url });
    s.revokeBotToken();
    expect((await call(s, 'auth.test', {})).json).toEqual({ ok: false, error: 'token_revoked' });
  });

  it('chat.postMessage refuses with HTTP 200 and ok:false: channel_not_found, not_in_channel, is_archived, no_text, msg_too_long', async () => {
    const s = await slack();
    const secret = s.ws.addChannel('secret', { isPrivate: true, members: [s.customer.id] });
    const refused = async (args: Record<string, unknown>) => {
      const answer = await call(s, 'chat.postMessage', args);
      expect(answer.status).toBe(200);
      return answer.json.error as string;
    };
    expect(await refused({ channel: 'C0NOSUCH01', text: 'x' })).toBe('channel_not_found');
    expect(await refused({ channel: secret.id, text: 'x' })).toBe('channel_not_found');
    expect(await refused({ channel: s.support.id, text: ' ' })).toBe('no_text');
    expect(await refused({ channel: s.support.id, text: 'x'.repeat(40_001) })).toBe('msg_too_long');
    s.botRemovedFrom(s.support);
    expect(await refused({ channel: s.support.id, text: 'x' })).toBe('not_in_channel');
    s.elsewhere.archived = true;
    expect(await refused({ channel: s.elsewhere.id, text: 'x' })).toBe('is_archived');
  });

  it('a reply posted in a thread counts on its root; a 429 with Retry-After comes past the method’s limit', async () => {
    const s = await slack();
    const root = await s.customerSays(s.support, 'Hello?');
    const posted = await call(s, 'chat.postMessage', { channel: s.support.id, thread_ts: root.ts, text: 'Hi' });
    expect(posted.json).toMatchObject({ ok: true, channel: s.support.id, message: { text: 'Hi', bot_id: s.bot.botId, thread_ts: root.ts } });
    expect(s.ws.message(s.support.id, root.ts)).toMatchObject({ replyCount: 1, latestReply: posted.json.ts });
    s.limits.set('chat.postMessage', { max: 1, windowMs: 60_000 });
    await call(s, 'chat.postMessage', { channel: s.support.id, text: 'one' });
    const limited = await call(s, 'chat.postMessage', { channel: s.support.id, text: 'two' });
    expect([limited.status, limited.json]).toEqual([429, { ok: false, error: 'ratelimited' }]);
    expect(Number(limited.retryAfter)).toBeGreaterThan(0);
  });

  it('pages history and replies by cursor (next_cursor, has_more); a thread’s root comes first; metadata only when asked', async () => {
    const s = await slack();
    const root = await s.customerSays(s.support, 'root');
    for (const n of [1, 2, 3]) await s.customerSays(s.support, `top ${n}`);
    for (const n of [1, 2, 3]) await call(s, 'chat.postMessage', { channel: s.support.id, thread_ts: root.ts, text: `reply ${n}`, metadata: { event_type: 'x', event_payload: { n } } });
    const first = await call(s, 'conversations.history', { channel: s.support.id, limit: 2 }, s.bot.token, 'form');
    expect(first.json.messages.map((m: { text: string }) => m.text)).toEqual(['top 3', 'top 2']);
    expect(first.json.has_more).toBe(true);
    const next = await call(s, 'conversations.history', { channel: s.support.id, limit: 2, cursor: first.json.response_metadata.next_cursor }, s.bot.token, 'form');
    expect([next.json.messages.map((m: { text: string }) => m.text), next.json.response_metadata.next_cursor]).toEqual([['top 1', 'root'], '']);
    expect((await call(s, 'conversations.history', { channel: s.support.id, cursor: 'bm9wZTox' }, s.bot.token, 'form')).json.error).toBe('invalid_cursor');
    const replies = await call(s, 'conversations.replies', { channel: s.support.id, ts: root.ts, limit: 2 }, s.bot.token, 'form');
    expect(replies.json.messages.map((m: { text: string; metadata?: unknown }) => [m.text, m.metadata])).toEqual([['root', undefined], ['reply 1', undefined], ['reply 2', undefined]]);
    const withMeta = await call(s, 'conversations.replies', { channel: s.support.id, ts: root.ts, include_all_metadata: true }, s.bot.token, 'form');
    expect(withMeta.json.messages[1].metadata).toEqual({ event_type: 'x', event_payload: { n: 1 } });
    s.botRemovedFrom(s.support);
    expect((await call(s, 'conversations.history', { channel: s.support.id }, s.bot.token, 'form')).json.error).toBe('not_in_channel');
  });

  it('uploads by the external flow into a thread; a file is shared once; private files want the bot token', async () => {
    const s = await slack();
    const root = await s.customerSays(s.support, 'send me the form');
    const bytes = Buffer.from('%PDF-1.4 the form');
    expect((await call(s, 'files.getUploadURLExternal', { filename: 'form.pdf' }, s.bot.token, 'form')).json.error).toBe('missing_argument');
    const ticket = (await call(s, 'files.getUploadURLExternal', { filename: 'form.pdf', length: bytes.length }, s.bot.token, 'form')).json;
    const uploaded = await fetch(ticket.upload_url, { method: 'POST', headers: { 'content-type': 'application/pdf' }, body: bytes });
    expect([uploaded.status, await uploaded.text()]).toEqual([200, `OK - ${bytes.length}`]);
    const done = await call(s, 'files.completeUploadExternal', { files: [{ id: ticket.file_id, title: 'The form' }], channel_id: s.support.id, thread_ts: root.ts });
    expect(done.json).toEqual({ ok: true, files: [{ id: ticket.file_id, title: 'The form' }] });
    expect((await call(s, 'files.completeUploadExternal', { files: [{ id: ticket.file_id }], channel_id: s.support.id })).json.error).toBe('file_not_found');
    const [shared] = s.botMessages(s.support, root.ts);
    expect(shared!.files).toEqual([ticket.file_id]);
    const info = (await call(s, 'files.info', { file: ticket.file_id }, s.bot.token, 'form')).json.file;
    const download = await fetch(info.url_private_download, { headers: { authorization: `Bearer ${s.bot.token}` }, redirect: 'manual' });
    expect(Buffer.from(await download.arrayBuffer()).equals(bytes)).toBe(true);
    const anonymous = await fetch(info.url_private_download, { redirect: 'manual' });
    expect([anonymous.status, new URL(anonymous.headers.get('location')!).pathname]).toEqual([302, '/']);
  });
});

describe('the Slack counterpart’s event sender', () => {
  it('takes a Request URL only when it answers the challenge, and signs each request as Slack does', async () => {
    const s = await slack();
    const echo = await receiver((_n, body) => ({ status: 200, body: JSON.stringify({ challenge: (JSON.parse(body) as { challenge?: string }).challenge }) }));
    const mute = await receiver(() => ({ status: 200, body: 'ok' }));
    await expect(s.subscribe(mute.url)).rejects.toThrow(/did not answer/);
    await s.subscribe(echo.url);
    const said = await s.customerSays(s.support, 'Hello');
    await said.delivered;
    const event = echo.requests[1]!;
    expect(JSON.parse(event.body)).toMatchObject({ type: 'event_callback', api_app_id: s.bot.appId, event: { type: 'message', channel: s.support.id, user: s.customer.id, text: 'Hello', ts: said.ts } });
    expect(() => new RequestVerifier(s.signingSecret).verify({ headers: event.headers as Record<string, string>, rawBody: Buffer.from(event.body) })).not.toThrow();
  });

  it('retries an event answered 5xx or too late, with X-Slack-Retry-Num and the reason, the body unchanged', async () => {
    const s = await slack({ eventTimeoutMs: 300, retryDelaysMs: [0, 50, 50] });
    const url = await receiver(async (n, body) => {
      if (body.includes('url_verification')) return { status: 200, body: (JSON.parse(body) as { challenge: string }).challenge };
      if (n === 2) return { status: 503 };
      if (n === 3) await new Promise((r) => setTimeout(r, 600));
      return { status: 200 };
    });
    await s.subscribe(url.url);
    const attempts = await (await s.customerSays(s.support, 'Are you there?')).delivered;
    expect(attempts.map((a) => [a.retryNum, a.status, a.reason ?? null])).toEqual([[0, 503, 'http_error'], [1, null, 'http_timeout'], [2, 200, null]]);
    const events = url.requests.slice(1);
    expect(events.map((r) => [r.headers['x-slack-retry-num'] ?? null, r.headers['x-slack-retry-reason'] ?? null])).toEqual([[null, null], ['1', 'http_error'], ['2', 'http_timeout']]);
    expect(new Set(events.map((r) => r.body)).size).toBe(1);
  });
});
