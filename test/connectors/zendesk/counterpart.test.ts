/**
 * The Zendesk counterpart refuses what Zendesk refuses, in Zendesk's shapes,
 * so the adapter's tests against it mean something: credentials other than
 * `email/token:api_token` (401, "Couldn't authenticate you"), the anonymous
 * `/users/me`, the export for admins only, too recent a `start_time`, a bad
 * page size, the rate limits (429 with Retry-After), a closed ticket's
 * update; and it pages and serves files as Zendesk does.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { startZendesk } from '../../support/zendesk/zendesk.ts';

const desk = await startZendesk({ limits: { export: { max: 4, windowMs: 60_000 } } });
afterAll(() => desk.close());

const basic = (email: string, secret: string) => `Basic ${Buffer.from(`${email}:${secret}`).toString('base64')}`;
const admin = basic(`${desk.gateway.email}/token`, desk.gateway.apiToken);
const agent = basic(`${desk.staff.email}/token`, desk.staff.apiToken!);

async function ask(path: string, options: { auth?: string; method?: string; body?: unknown } = {}) {
  const headers: Record<string, string> = options.auth ? { authorization: options.auth } : {};
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${desk.url}${path}`, { method: options.method ?? 'GET', headers, redirect: 'manual', body: options.body === undefined ? undefined : JSON.stringify(options.body) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text.startsWith('{') ? JSON.parse(text) : text };
}

describe('the Zendesk counterpart', () => {
  it('takes only email/token:api_token; anything else is 401 in Zendesk’s words; /users/me answers an anonymous caller', async () => {
    for (const auth of [basic(`${desk.gateway.email}/token`, 'wrong'), basic(desk.gateway.email, desk.gateway.apiToken), 'Bearer abc']) {
      expect(await ask('/api/v2/tickets/1.json', { auth })).toMatchObject({ status: 401, json: { error: "Couldn't authenticate you" } });
    }
    expect(await ask('/api/v2/tickets/1.json')).toMatchObject({ status: 401 });
    expect(await ask('/api/v2/users/me.json')).toMatchObject({ status: 200, json: { user: { id: null, name: 'Anonymous user' } } });
    expect(await ask('/api/v2/users/me.json', { auth: admin })).toMatchObject({ status: 200, json: { user: { id: desk.gateway.id, role: 'admin' } } });
    expect(await ask('/api/v2/tickets/1.json', { auth: admin })).toMatchObject({ status: 404, json: { error: 'RecordNotFound', description: 'Not found' } });
  });

  it('the export is for admins, wants a start_time a minute old and per_page up to 1000, and allows its own 4 a minute here (refused requests count)', async () => {
    const now = Math.floor(desk.store.clock.now() / 1000);
    const path = (query: string) => `/api/v2/incremental/tickets/cursor.json?${query}`;
    expect(await ask(path(`start_time=${now - 120}`), { auth: agent })).toMatchObject({ status: 403, json: { error: 'Forbidden' } });
    expect(await ask(path(`start_time=${now - 10}`), { auth: admin })).toMatchObject({ status: 422, json: { error: 'InvalidValue', description: expect.stringContaining('Too recent start_time') } });
    expect(await ask(path(`start_time=${now - 120}&per_page=1001`), { auth: admin })).toMatchObject({ status: 400, json: { error: 'InvalidValue' } });
    const ok = await ask(path(`start_time=${now - 120}`), { auth: admin });
    expect(ok).toMatchObject({ status: 200, json: { tickets: expect.any(Array), end_of_stream: true, after_cursor: expect.any(String) } });
    const limited = await ask(path(`cursor=${encodeURIComponent(ok.json.after_cursor)}`), { auth: admin });
    expect(limited).toMatchObject({ status: 429, json: { error: 'APIRateLimitExceeded' } });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers.get('x-rate-limit')).toBe('700');
  });

  it('pages comments by cursor (page[size], meta.has_more, links.next) or by offset; a bad page size is a 400', async () => {
    const id = await desk.openTicket({ subject: 'Pages', text: 'one' });
    await desk.comment(id, 'two');
    await desk.comment(id, 'three');
    const first = await ask(`/api/v2/tickets/${id}/comments.json?page[size]=2`, { auth: admin });
    expect(first.json.comments.map((c: { body: string }) => c.body)).toEqual(['one', 'two']);
    expect(first.json.meta).toMatchObject({ has_more: true });
    const next = await ask(new URL(first.json.links.next).pathname + new URL(first.json.links.next).search, { auth: admin });
    expect([next.json.comments.map((c: { body: string }) => c.body), next.json.meta.has_more, next.json.links.next]).toEqual([['three'], false, null]);
    expect((await ask(`/api/v2/tickets/${id}/comments.json?per_page=2`, { auth: admin })).json).toMatchObject({ count: 3, next_page: expect.stringContaining('page=2') });
    expect(await ask(`/api/v2/tickets/${id}/comments.json?page[size]=lots`, { auth: admin })).toMatchObject({ status: 400, json: { error: 'InvalidPaginationParameter' } });
  });

  it('a closed ticket takes no update (422 RecordInvalid); a blank comment neither', async () => {
    const id = await desk.openTicket({ subject: 'Done', text: 'x' });
    const blank = await ask(`/api/v2/tickets/${id}.json`, { auth: agent, method: 'PUT', body: { ticket: { comment: { body: ' ' } } } });
    expect(blank).toMatchObject({ status: 422, json: { error: 'RecordInvalid', details: { comment: [{ description: 'Comment: cannot be blank' }] } } });
    await desk.setStatus(id, 'closed');
    const update = await ask(`/api/v2/tickets/${id}.json`, { auth: agent, method: 'PUT', body: { ticket: { comment: { body: 'hello' } } } });
    expect(update).toMatchObject({ status: 422, json: { error: 'RecordInvalid', details: { status: [{ description: 'Status: closed prevents ticket update' }] } } });
  });

  it('content_url redirects a signed-in caller to the file on another host, anyone else to the sign-in', async () => {
    const id = await desk.openTicket({ subject: 'File', text: 'x', files: [{ filename: 'a.txt', contentType: 'text/plain', content: Buffer.from('hello') }] });
    const [attachment] = desk.comments(id)[0]!.attachments as unknown as { content_url: string }[];
    const path = new URL(attachment!.content_url);
    const signedIn = await ask(path.pathname + path.search, { auth: admin });
    expect(signedIn.status).toBe(302);
    const location = new URL(signedIn.headers.get('location')!);
    expect(location.origin).not.toBe(new URL(desk.url).origin);
    expect(await (await fetch(location)).text()).toBe('hello');
    expect(new URL((await ask(path.pathname + path.search)).headers.get('location')!).pathname).toBe('/access/unauthenticated');
  });
});
