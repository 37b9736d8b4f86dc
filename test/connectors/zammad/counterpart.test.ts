/**
 * The Zammad counterpart refuses and pages as Zammad does (the reference
 * pages named in test/support/zammad/): no credentials 403, an unknown token
 * 401, both in Zammad's `{"error", "error_human"}` shape with `X-Failure`;
 * another customer's ticket 403, a missing one 404; a customer's article is
 * always a public note and never sees internal ones; missing body, file keys
 * or bad base64 422; `*` deleted from queries and a query the index refuses
 * answered with no tickets; pages of at most 200; nginx's 413; a throttle's
 * 429 with Retry-After to the end of its period.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { startZammad, ZammadClient } from '../../support/zammad/zammad-counterpart.ts';

const zammad = await startZammad();
afterAll(() => zammad.close());
const group = await zammad.newGroup();

async function raw(method: string, path: string, headers: Record<string, string> = {}, body?: string) {
  const response = await fetch(`${zammad.url}/api/v1${path}`, { method, headers, body });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

describe('the Zammad counterpart', () => {
  it('refuses missing and unknown credentials as Zammad does', async () => {
    const none = await raw('GET', '/users/me');
    expect([none.status, JSON.parse(none.text), none.headers.get('x-failure')]).toEqual([403, { error: 'Authentication required', error_human: 'Authentication required' }, 'Authentication required']);
    const unknown = await raw('GET', '/users/me', { authorization: 'Token token=nope' });
    expect([unknown.status, JSON.parse(unknown.text)]).toEqual([401, { error: "Can't find User for Token", error_human: "Can't find User for Token" }]);
    const me = await zammad.gateway.call('GET', '/users/me?expand=true');
    expect([me.id, me.groups[group]]).toEqual([zammad.gateway.user.id, ['full']]);
    expect((await raw('GET', '/nothing/here', { authorization: `Token token=${zammad.gateway.token}` })).status).toBe(404);
  });

  it('keeps customers to their own tickets and public articles; refuses what it cannot take with 422', async () => {
    const id = await zammad.customer.openTicket(group, { title: 'Mine', body: 'x' });
    await zammad.staff.internalNote(id, 'staff only');
    const written = await zammad.customer.call('POST', '/ticket_articles', { ticket_id: id, body: 'try internal', type: 'email', internal: true });
    expect([written.type, written.internal, written.sender]).toEqual(['note', false, 'Customer']);
    expect((await zammad.customer.articles(id)).map((a) => a.body)).toEqual(['x', 'try internal']);
    const user = zammad.server.store.addUser({ login: 'bob@example.com', firstname: 'Bob', lastname: 'Other', email: 'bob@example.com', roles: ['Customer'] });
    const bob = new ZammadClient(zammad.url, zammad.server.store.addToken(user.id), user);
    await expect(bob.call('GET', `/tickets/${id}`)).rejects.toMatchObject({ status: 403 });
    await expect(bob.call('GET', '/tickets/99999')).rejects.toMatchObject({ status: 404, body: JSON.stringify({ error: "Couldn't find Ticket with 'id'=99999", error_human: "Couldn't find Ticket with 'id'=99999" }) });
    const refusal = (p: Promise<unknown>) => p.then(() => 'resolved', (e: { status: number; body: string }) => `${e.status} ${JSON.parse(e.body).error}`);
    expect(await refusal(zammad.staff.call('POST', '/ticket_articles', { ticket_id: id }))).toBe('422 Need at least article: { body: "some text" }');
    expect(await refusal(zammad.staff.call('POST', '/ticket_articles', { ticket_id: id, body: 'x', attachments: [{ filename: 'a', data: 'YQ==' }] }))).toBe("422 Attachment needs 'mime-type' param for attachment with index '0'");
    expect(await refusal(zammad.staff.call('POST', '/ticket_articles', { ticket_id: id, body: 'x', attachments: [{ filename: 'a', data: '%%%', 'mime-type': 'text/plain' }] }))).toBe("422 Invalid base64 for attachment with index '0'");
    expect(await refusal(zammad.staff.call('POST', '/ticket_articles', { ticket_id: id, body: 'x', type: 'pigeon' }))).toBe('422 No lookup value found for \'type\': "pigeon"');
    expect(await refusal(zammad.staff.setState(id, 'archived'))).toBe('422 No lookup value found for \'state\': "archived"');
  });

  it('searches the index: `*` deleted, a refused query answered with no tickets, pages of at most 200', async () => {
    const own = await zammad.newGroup();
    for (let i = 0; i < 3; i += 1) await zammad.customer.openTicket(own, { title: `Page ${i}`, body: 'x' });
    const q = (query: string, extra = '') => zammad.gateway.call('GET', `/tickets/search?query=${encodeURIComponent(query)}&sort_by=updated_at&order_by=asc${extra}`);
    const all = await q(`group.name:"${own}"`);
    expect([all.tickets.length, all.tickets_count]).toEqual([3, 3]);
    expect(Object.keys(all.assets.Ticket)).toEqual(all.tickets.map(String));
    const pages = [await q(`group.name:"${own}"`, '&page=1&per_page=2'), await q(`group.name:"${own}"`, '&page=2&per_page=2')];
    expect(pages.map((p) => p.tickets)).toEqual([all.tickets.slice(0, 2), all.tickets.slice(2)]);
    expect((await q(`group.name:"${own}" AND updated_at:[2000-01-01T00:00:00Z TO *]`)).tickets).toEqual([]);
    expect((await q(`group.name:"${own}" AND updated_at:>=2000-01-01T00:00:00Z`)).tickets).toEqual([]);
    expect(zammad.server.searchErrors.length).toBe(2);
    expect((await q(`group.name:"${own}" AND updated_at:>=2000-01-01T00\\:00\\:00Z`)).tickets).toEqual(all.tickets);
    for (let i = 0; i < 200; i += 1) await zammad.customer.openTicket(own, { title: `Many ${i}`, body: 'x' });
    expect((await q(`group.name:"${own}"`, '&per_page=500')).tickets.length).toBe(200);
  });

  it('refuses a body over nginx’s limit with 413 and throttles with 429 and Retry-After when a throttle is set', async () => {
    zammad.server.maxBodyBytes = 1_000;
    try {
      const big = await raw('POST', '/ticket_articles', { authorization: `Token token=${zammad.staff.token}`, 'content-type': 'application/json' }, JSON.stringify({ body: 'x'.repeat(2_000) }));
      expect(big.status).toBe(413);
    } finally {
      zammad.server.maxBodyBytes = 50 * 1024 * 1024;
    }
    zammad.server.gate.throttle = { limit: 2, periodMs: 60_000 };
    try {
      const auth = { authorization: `Token token=${zammad.staff.token}` };
      const answers = [await raw('GET', '/users/me', auth), await raw('GET', '/users/me', auth), await raw('GET', '/users/me', auth)];
      expect(answers.map((a) => a.status).slice(-1)).toEqual([429]);
      const last = answers.at(-1)!;
      expect(last.text).toBe('Retry later\n');
      expect(Number(last.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(Number(last.headers.get('retry-after'))).toBeLessThanOrEqual(60);
      expect((await raw('GET', '/users/me', { authorization: `Token token=${zammad.customer.token}` })).status).toBe(200);
    } finally {
      zammad.server.gate.throttle = undefined;
    }
  });
});
