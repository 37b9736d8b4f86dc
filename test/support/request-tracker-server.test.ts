/**
 * The Request Tracker test harness against a real RT 5 (./request-tracker.ts):
 * a customer opens a ticket with a PDF, the agent comments, the gateway's own
 * user replies with a file over REST2 (as the adapter will), the agent
 * resolves it, and the history says who did what, with which files.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { requestTracker, type TestRequestTracker } from './request-tracker.ts';

const PDF = Buffer.from('%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n');
const REPLY_FILE = Buffer.from([0x00, 0xff, 0x10, 0x80, 0x7f, 0x0a, 0x0d, 0xc3, 0x28]);

describe('Request Tracker test harness', () => {
  let rt: TestRequestTracker;
  beforeAll(async () => {
    rt = await requestTracker();
  }, 180_000);

  it('answers REST2 for every seeded user with its own token', async () => {
    const about = await rt.api('GET', '/rt', undefined, 'gateway');
    expect(about.status).toBe(200);
    expect(about.json.Version).toMatch(/^5\.0\./);
    const me = await rt.api('GET', `/user/${rt.seed.gateway_id}`, undefined, 'gateway');
    expect(me.json).toMatchObject({ id: rt.seed.gateway_id, Name: 'gateway', Privileged: 1 });
    expect(rt.seed.gateway_token.startsWith(`1-${rt.seed.gateway_id}-`)).toBe(true);
    expect((await rt.api('GET', '/rt', undefined, 'customer')).status).toBe(200);
    expect((await rt.api('GET', '/rt')).json.Plugins).toEqual([]);
  });

  it('records a ticket, an internal comment, a reply with a file by the gateway and the resolve', async () => {
    const queue = await rt.newQueue();
    const id = await rt.createTicket(queue, {
      subject: 'Printer on fire',
      content: 'It burns.\nHelp!',
      attachments: [{ filename: 'scan.pdf', contentType: 'application/pdf', bytes: PDF }],
    });
    await rt.comment(id, 'Internal: check the fuser');
    const reply = await rt.api('POST', `/ticket/${id}/correspond`, {
      Content: '<p><b>Sam</b> (via chat):</p><p>We are on it.</p>',
      ContentType: 'text/html',
      Attachments: [{ FileName: 'fix.bin', FileType: 'application/octet-stream', FileContent: REPLY_FILE.toString('base64') }],
    }, 'gateway');
    expect(reply.status).toBe(201);
    expect(reply.json).toEqual(['Correspondence added']);
    const replyId = Number(reply.headers.get('location')?.match(/^\/REST\/2\.0\/transaction\/(\d+)$/)?.[1]);
    expect(replyId).toBeGreaterThan(0);
    await rt.setStatus(id, 'resolved');

    const ticket = await rt.ticket(id);
    expect(ticket).toMatchObject({ Subject: 'Printer on fire', Status: 'resolved', Creator: { id: 'ann' }, Requestor: [{ id: 'ann' }], Queue: { type: 'queue' } });

    const history = await rt.history(id);
    const mine = history.filter((t) => ['Create', 'Correspond', 'Comment', 'Status'].includes(t.type));
    expect(mine.map((t) => [t.type, t.creator])).toEqual([
      ['Create', 'ann'],
      ['Comment', 'agent'],
      ['Correspond', 'gateway'],
      ['Status', 'RT_System'], // a reply opens a new ticket
      ['Status', 'agent'],
    ]);
    const [created, comment, correspond, opened, resolved] = mine;
    expect(created).toMatchObject({ text: 'It burns.\nHelp!', textType: 'text/plain' });
    expect(created!.files.map((f) => [f.filename, f.contentType, f.size])).toEqual([['scan.pdf', 'application/pdf', PDF.length]]);
    expect(await rt.download(created!.files[0]!.id)).toEqual(PDF);
    expect(comment).toMatchObject({ text: 'Internal: check the fuser', files: [] });
    expect(correspond).toMatchObject({ id: replyId, textType: 'text/html', text: '<p><b>Sam</b> (via chat):</p><p>We are on it.</p>' });
    expect(correspond!.files.map((f) => f.filename)).toEqual(['fix.bin']);
    expect(await rt.download(correspond!.files[0]!.id)).toEqual(REPLY_FILE);
    expect([opened!.field, opened!.oldValue, opened!.newValue]).toEqual(['Status', 'new', 'open']);
    expect([resolved!.field, resolved!.oldValue, resolved!.newValue]).toEqual(['Status', 'open', 'resolved']);

    // RT mailed the reply to the Requestor (into its test file, not out).
    expect(rt.sentMail()).toContain('to: ann@example.test');
    expect(rt.sentMail()).toContain('We are on it.');
  });

  it('keeps tickets apart by queue, and the customer to its own tickets', async () => {
    const [a, b] = [await rt.newQueue(), await rt.newQueue()];
    const inA = await rt.createTicket(a, { subject: 'in A', content: 'a' });
    await rt.createTicket(b, { subject: 'in B', content: 'b' });
    const found = await rt.api('GET', `/tickets?query=${encodeURIComponent(`Queue = '${a}'`)}`, undefined, 'gateway');
    expect(found.json.items.map((t: { id: string }) => Number(t.id))).toEqual([inA]);
    await rt.correspond(inA, 'Any news?');
    const byAgent = await rt.createTicket(a, { subject: 'opened by staff', content: 'x' }, 'agent');
    expect((await rt.api('GET', `/ticket/${byAgent}`, undefined, 'customer')).status).toBe(403);
    expect((await rt.api('GET', `/ticket/${inA}`, undefined, 'outsider')).status).toBe(403);
    await rt.setStatus(inA, 'deleted');
    const after = await rt.api('GET', `/tickets?query=${encodeURIComponent(`Queue = '${a}'`)}`, undefined, 'gateway');
    expect(after.json.items.map((t: { id: string }) => Number(t.id))).toEqual([byAgent]);
  });
});
