/**
 * What the Zendesk adapter does beyond the ticket-adapter contract, against
 * the counterpart: the export's minute never makes `since` pass a change
 * (not even a ticket kept out of the export by a second change); a 429 on
 * a later page of the export ends the round with what was listed and the
 * next round lists the rest; a solve with a comment is one entry, a status
 * change alone `audit-<id>`; authors that were not sideloaded are looked up;
 * comments and audits are read over several pages; a reply to a closed
 * ticket and an upload over Zendesk's limit are refused with its words.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ZendeskConnectorConfig } from '../../../connectors/zendesk/config.ts';
import { ZendeskAdapter, type ZendeskAdapterOptions } from '../../../connectors/zendesk/zendesk-adapter.ts';
import { startZendesk, type TestZendesk, type ZendeskOptions } from '../../support/zendesk/zendesk.ts';

const signal = new AbortController().signal;
const desks: TestZendesk[] = [];
afterEach(async () => {
  for (const desk of desks.splice(0)) await desk.close();
});

async function setUp(options: ZendeskOptions = {}, adapterOptions: ZendeskAdapterOptions = {}) {
  const desk = await startZendesk(options);
  desks.push(desk);
  const adapter = new ZendeskAdapter(ZendeskConnectorConfig.parse({ url: desk.url, email: desk.gateway.email, api_token: desk.gateway.apiToken }), adapterOptions);
  await adapter.connect(signal);
  return { desk, adapter };
}

const ids = (list: { changes: { id: string }[] }) => list.changes.map((c) => c.id);

describe('the Zendesk adapter, finding changes', () => {
  it('a change inside the export’s minute is listed once the minute passed; since never passes it', async () => {
    const { desk, adapter } = await setUp({ settleWrites: false });
    const start = await adapter.listChanges(undefined, signal);
    const hidden = await desk.openTicket({ subject: 'Busy', text: 'first' });
    desk.advance(5_000);
    const quick = await desk.openTicket({ subject: 'Quick', text: 'x' });
    desk.advance(45_000);
    await desk.comment(hidden, 'again within the minute');
    desk.advance(30_000);
    // "Quick" changed 75 s ago and is listed; "Busy", opened before it, changed again 30 s ago and is left out as a whole:
    // the next round must start no later than Busy's opening, or the poller would take it for an older ticket.
    const first = await adapter.listChanges(start.nextSince, signal);
    expect(ids(first)).toEqual([String(quick)]);
    const busy = await adapter.readTicket(String(hidden), signal);
    expect(Date.parse(first.nextSince)).toBeLessThanOrEqual(Date.parse(busy.createdAt));
    desk.advance(61_000);
    const second = await adapter.listChanges(first.nextSince, signal);
    expect(ids(second)).toContain(String(hidden));
  });

  it('a 429 on a later page ends the round with what was listed; the next round lists the rest; a 429 on the first page fails it with Retry-After', async () => {
    const { desk, adapter } = await setUp({ limits: { export: { max: 1, windowMs: 60_000 } } }, { exportPageSize: 2 });
    const start = await adapter.listChanges(undefined, signal);
    const opened: string[] = [];
    for (const n of [1, 2, 3, 4, 5]) opened.push(String(await desk.openTicket({ subject: `T${n}`, text: 'x' })));
    const partial = await adapter.listChanges(start.nextSince, signal);
    expect(ids(partial)).toEqual(opened.slice(0, 2));
    const refused = await adapter.listChanges(partial.nextSince, signal).catch((err: unknown) => err as { status?: number; retryAfterMs?: number });
    expect(refused).toMatchObject({ status: 429 });
    expect((refused as { retryAfterMs: number }).retryAfterMs).toBeGreaterThan(0);
    desk.limits.limits.export = { max: 100, windowMs: 60_000 };
    const rest = await adapter.listChanges(partial.nextSince, signal);
    expect(ids(rest).filter((id) => !ids(partial).includes(id))).toEqual(opened.slice(2));
  });
});

describe('the Zendesk adapter, reading tickets', () => {
  it('a solve with a comment is one entry; a status change alone is audit-<id>; its author is looked up', async () => {
    const { desk, adapter } = await setUp();
    const id = await desk.openTicket({ subject: 'Status', text: 'x' });
    await desk.comment(id, 'Fixed it, closing.', { by: desk.staff, status: 'solved' });
    await desk.setStatus(id, 'open');
    const ticket = await adapter.readTicket(String(id), signal);
    const [solved, reopened] = ticket.entries;
    expect(solved).toMatchObject({ text: 'Fixed it, closing.', statusChange: 'closed', private: false, author: { name: 'Sam Staff' } });
    expect(reopened!.id).toMatch(/^audit-\d+$/);
    expect(reopened).toMatchObject({ text: '', statusChange: 'reopened', author: { id: String(desk.staff.id), name: 'Sam Staff' } });
    expect(ticket).toMatchObject({ closed: false, author: { name: 'Ann Customer', email: desk.customer.email } });
  });

  it('comments and audits are read over several pages', async () => {
    const { desk, adapter } = await setUp({}, { pageSize: 2 });
    const id = await desk.openTicket({ subject: 'Long', text: 'x' });
    for (const n of [1, 2, 3, 4, 5]) await desk.comment(id, `comment ${n}`);
    const ticket = await adapter.readTicket(String(id), signal);
    expect(ticket.entries.map((e) => e.text)).toEqual(['comment 1', 'comment 2', 'comment 3', 'comment 4', 'comment 5']);
    expect(desk.requests.filter((r) => r.path.endsWith('/comments.json')).length).toBe(3);
  });
});

describe('the Zendesk adapter, writing and files', () => {
  it('a reply to a closed ticket is refused with Zendesk’s words (422)', async () => {
    const { desk, adapter } = await setUp();
    const id = await desk.openTicket({ subject: 'Closed', text: 'x' });
    await desk.setStatus(id, 'closed');
    const err = await adapter.addNote(String(id), { text: 'Too late', private: false }, signal).catch((e: unknown) => e as { status?: number; answer?: string });
    expect(err).toMatchObject({ status: 422, answer: expect.stringContaining('closed prevents ticket update') });
  });

  it('an upload over Zendesk’s limit is refused as that file’s (TicketAttachmentRefusedError)', async () => {
    const { adapter } = await setUp({ maxUploadBytes: 1_000 });
    const err = await adapter.uploadAttachment({ filename: 'big.pdf', contentType: 'application/pdf', content: Buffer.alloc(2_000) }, signal).catch((e: unknown) => e as { code?: string; answer?: string });
    expect(err).toMatchObject({ code: 'TG_TICKET_ATTACHMENT_REFUSED', answer: expect.stringContaining('file size exceeds') });
  });

  it('a content_url outside the account gets no credentials: behind the sign-in it is unavailable, never a web page', async () => {
    const file = { filename: 'scan.pdf', contentType: 'application/pdf', content: Buffer.from('%PDF-1.4 scan') };
    for (const privateAttachments of [true, false]) {
      const { desk, adapter } = await setUp({ privateAttachments });
      const id = await desk.openTicket({ subject: 'Elsewhere', text: 'x', files: [file] });
      const listed = (await adapter.readTicket(String(id), signal)).attachments[0]!;
      const elsewhere = { ...listed, url: listed.url.replace('127.0.0.1', 'localhost') };
      const got = await adapter.downloadAttachment(elsewhere, 10_000, signal).catch((e: unknown) => (e as { code: string }).code);
      expect(got).toEqual(privateAttachments ? 'TG_TICKET_ATTACHMENT_UNAVAILABLE' : file.content);
      expect(desk.requests.filter((r) => r.path.startsWith('/attachments/')).map((r) => r.user)).toEqual([undefined]);
      expect(desk.fileHostRequests.every((r) => !r.authorization)).toBe(true);
    }
  });
});
