/**
 * What is Zammad's own in the adapter, against the Zammad counterpart: the
 * search it sends (a group name with quotes included); a change the search
 * index took late is still listed by a later round (the overlap); keyset
 * pages, so a ticket changing during the listing shifts no other one past a
 * page; state changes of each state type; who wrote what (a phone note an
 * agent wrote for the customer is the customer's); replies as emails to the
 * customer; files that are not the article's; Zammad's refusals with its words.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ZammadConnectorConfig } from '../../../connectors/zammad/config.ts';
import { ZammadAdapter } from '../../../connectors/zammad/zammad-adapter.ts';
import { startTicketSystemProxy } from '../../support/ticket-system-proxy.ts';
import { startZammad } from '../../support/zammad/zammad-counterpart.ts';

const zammad = await startZammad();
afterAll(() => zammad.close());
const signal = new AbortController().signal;
const adapterFor = (group: string, extra: Record<string, unknown> = {}, pageSize?: number) =>
  new ZammadAdapter(ZammadConnectorConfig.parse({ url: zammad.url, token: zammad.gateway.token, group, search_overlap_seconds: 10, ...extra }), pageSize ? { pageSize } : {});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const searches = () => zammad.server.requests.filter((r) => r.path === '/api/v1/tickets/search');

describe('the Zammad adapter: finding changes', () => {
  it('searches the group by name (quotes escaped) and updated_at as a range, oldest change first, 200 a page', async () => {
    const name = 'Support "EMEA" \\ 2nd';
    const group = zammad.server.store.addGroup(name);
    zammad.gateway.user.groups[group.id] = ['full'];
    const other = await zammad.newGroup();
    const adapter = adapterFor(name);
    await adapter.connect(signal);
    const since = (await adapter.listChanges(undefined, signal)).nextSince;
    const mine = await zammad.customer.openTicket(name, { title: 'Mine', body: 'x' });
    await zammad.customer.openTicket(other, { title: 'Not mine', body: 'y' });
    const listed = await adapter.listChanges(since, signal);
    expect(listed.changes.map((c) => c.id)).toEqual([String(mine)]);
    const sent = searches().at(-1)!.query;
    expect(sent).toEqual({ query: `group.name:"Support \\"EMEA\\" \\\\ 2nd" AND updated_at:[${since} TO 2999-12-31T23:59:59.999Z]`, sort_by: 'updated_at', order_by: 'asc', page: '1', per_page: '200' });
    expect(zammad.server.searchErrors).toEqual([]);
  });

  it('a change the index took late is listed by a later round: the cursor overlaps', async () => {
    const group = await zammad.newGroup();
    const adapter = adapterFor(group);
    let since = (await adapter.listChanges(undefined, signal)).nextSince;
    zammad.server.store.indexLagMs = 2_500;
    try {
      const id = String(await zammad.customer.openTicket(group, { title: 'Indexed late', body: 'x' }));
      // The next round comes more than a second later (Zammad's Date header has whole seconds), still before the index took it.
      await sleep(1_100);
      const early = await adapter.listChanges(since, signal);
      expect(early.changes.map((c) => c.id)).not.toContain(id);
      expect(Date.parse(early.nextSince)).toBeLessThan(Date.parse(zammad.server.store.tickets.at(-1)!.updated_at));
      since = early.nextSince;
      await sleep(1_500);
      const later = await adapter.listChanges(since, signal);
      expect(later.changes.map((c) => c.id)).toContain(id);
    } finally {
      zammad.server.store.indexLagMs = 0;
    }
  });

  it('pages are keyset: a ticket changed while the pages are read moves to the end and shifts no other one out', async () => {
    const group = await zammad.newGroup();
    const ids: number[] = [];
    for (const n of [1, 2, 3, 4, 5]) ids.push(await zammad.customer.openTicket(group, { title: `Old ${n}`, body: 'x' }));
    // Changed an hour ago, a minute apart: long settled in the index.
    const hourAgo = Date.now() - 3_600_000;
    for (const [i, id] of ids.entries()) {
      const t = zammad.server.store.tickets.find((x) => x.id === id)!;
      t.updated_at = new Date(hourAgo + i * 60_000).toISOString();
      t.versions = [{ ...t.versions.at(-1)!, at: 0, updated_at: t.updated_at }];
    }
    const proxy = await startTicketSystemProxy(zammad.url);
    const adapter = new ZammadAdapter(ZammadConnectorConfig.parse({ url: proxy.url, token: zammad.gateway.token, group, search_overlap_seconds: 10 }), { pageSize: 2 });
    let changed = false;
    proxy.onAnswer = async (_method, url) => {
      if (changed || !url.includes('/tickets/search')) return;
      changed = true;
      await zammad.customer.reply(ids[0]!, 'A change while the pages are read');
    };
    const listed = await adapter.listChanges(new Date(hourAgo - 60_000).toISOString(), signal);
    expect(listed.changes.map((c) => c.id)).toEqual([ids[1], ids[2], ids[3], ids[4], ids[0]].map(String));
    expect(Date.parse(listed.changes.at(-1)!.updatedAt)).toBeGreaterThan(Date.now() - 60_000);
  });
});

describe('the Zammad adapter: reading tickets', () => {
  it('state types decide: merged closes, a move among open states or new → open is no entry, reopening reopens', async () => {
    const group = await zammad.newGroup();
    const adapter = adapterFor(group);
    await adapter.connect(signal);
    const id = await zammad.customer.openTicket(group, { title: 'States', body: 'x' });
    await zammad.staff.reply(id, 'We are on it.', { type: 'email' });
    await zammad.staff.setState(id, 'pending reminder');
    await zammad.staff.setState(id, 'merged');
    await zammad.staff.setState(id, 'open');
    await zammad.customer.reply(id, 'After the reopening');
    const ticket = await adapter.readTicket(String(id), signal);
    expect(ticket.entries.map((e) => e.statusChange ?? e.text)).toEqual(['We are on it.', 'closed', 'reopened', 'After the reopening']);
    expect(ticket.closed).toBe(false);
  });

  it('a phone note an agent wrote for the customer is the customer’s; the gateway’s own email reply is its own', async () => {
    const group = await zammad.newGroup();
    const adapter = adapterFor(group);
    await adapter.connect(signal);
    const id = await zammad.customer.openTicket(group, { title: 'Who', body: 'x' });
    await zammad.staff.call('POST', '/ticket_articles', { ticket_id: id, body: 'Called: printer fixed?', type: 'phone', internal: false, origin_by_id: zammad.customer.user.id });
    await adapter.addNote(String(id), { text: 'Agent (via chat, ref 0123456789ab):\n\nIt is.', private: false }, signal);
    const [phone, own] = (await adapter.readTicket(String(id), signal)).entries;
    expect([phone!.author.name, adapter.isOwnEntry(phone!)]).toEqual(['Ann Customer', false]);
    expect([own!.author.name, adapter.isOwnEntry(own!)]).toEqual(['Threadgate Gateway', true]);
    const written = (await zammad.staff.articles(id)).at(-1);
    expect([written.type, written.to, written.subject, written.internal]).toEqual(['email', 'ann@customer.example.com', 'Who', false]);
  });

  it('a file asked for under another article is not handed out; a refused write carries Zammad’s words', async () => {
    const group = await zammad.newGroup();
    const adapter = adapterFor(group);
    await adapter.connect(signal);
    const id = await zammad.customer.openTicket(group, { title: 'Files', body: 'x', files: [{ filename: 'a.txt', contentType: 'text/plain', bytes: Buffer.from('aaa') }] });
    const file = (await adapter.readTicket(String(id), signal)).attachments[0]!;
    const elsewhere = { ...file, url: file.url.replace(/\/(\d+)\/(\d+)$/, (_m, article, f) => `/${Number(article) + 1000}/${f}`) };
    await expect(adapter.downloadAttachment(elsewhere, 100, signal)).rejects.toMatchObject({ code: 'TG_TICKET_ATTACHMENT_UNAVAILABLE', status: 404 });
    await expect(adapter.addNote('999999', { text: 'x', private: true }, signal)).rejects.toMatchObject({ status: 404, answer: "Couldn't find Ticket with 'id'=999999" });
  });

  it('a file too large for one Zammad request is refused before anything is sent', async () => {
    const adapter = adapterFor(await zammad.newGroup());
    await expect(adapter.uploadAttachment({ filename: 'huge.bin', contentType: 'application/octet-stream', content: Buffer.alloc(38 * 1024 * 1024) })).rejects.toMatchObject({ code: 'TG_TICKET_ATTACHMENT_REFUSED' });
    const small = await adapter.uploadAttachment({ filename: 'small.bin', contentType: 'application/octet-stream', content: Buffer.alloc(10) });
    expect(small.filename).toBe('small.bin');
  });

  it('a throttled request is a TicketSystemError with the Retry-After it asked', async () => {
    const adapter = adapterFor(await zammad.newGroup());
    zammad.server.gate.throttleNext(1, 7);
    await expect(adapter.connect(signal)).rejects.toMatchObject({ status: 429, retryAfterMs: 7_000, answer: 'Retry later' });
  });
});
