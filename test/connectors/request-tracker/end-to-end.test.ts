/**
 * The Request Tracker connector in a real gateway, against a real RT 5
 * (Debian's, SQLite, on loopback) and the sandbox as the platform, with the
 * settings of docs/ticket-systems.md (url, token, queue, poll_seconds): a ticket
 * becomes a chat; correspondence with a PDF arrives with the file's signed
 * link; a comment never arrives; an agent reply becomes one correspondence by
 * the gateway's user, with its files, and is not posted back — also when the
 * answer to its write was lost and the delivery is retried.
 */
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { chatTexts } from '../../support/gateway.ts';
import { requestTracker, type TestRequestTracker } from '../../support/request-tracker.ts';
import { startTicketSystemProxy } from '../../support/ticket-system-proxy.ts';
import { until } from '../../support/wait.ts';
import { ARRIVES_MS, CONNECTOR, chatOfTicket, health, helpDesk } from './support.ts';
import { expectFileLine } from '../../support/file-line.ts';

let rt: TestRequestTracker;
beforeAll(async () => {
  rt = await requestTracker();
}, 120_000);

const pdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(20_000), Buffer.from([0, 0, 255])]);
const file = (name: string, contentType: string, bytes: Buffer) => ({ type: 'file', name, content_type: contentType, content_base64: bytes.toString('base64') });
const ownReplies = async (id: number) => (await rt.history(id)).filter((t) => t.creator === rt.seed.gateway_name && (t.type === 'Correspond' || t.type === 'Comment'));

describe('Request Tracker connector, end to end', () => {
  it('a ticket becomes a chat; correspondence with a PDF arrives linked, a comment never; an agent reply is one correspondence', { timeout: 90_000 }, async () => {
    const { tg, queue } = await helpDesk(rt);
    const id = await rt.createTicket(queue, { subject: 'Printer on fire', content: 'Smoke everywhere.\nPlease help.' });
    const thread = await chatOfTicket(tg, id);
    await until(async () => (await chatTexts(tg, thread.chatId)).length === 1, ARRIVES_MS, 'the opening message');
    expect(await chatTexts(tg, thread.chatId)).toEqual(['Printer on fire\n\nSmoke everywhere.\nPlease help.']);
    expect(thread.key).toBe(`${new URL(rt.url).host}/ticket/${id}`);
    const visitor = (await tg.sandbox.call('GET', `/_sandbox/chats/${thread.chatId}`)).body.visitor;
    expect(visitor.variables).toMatchObject({ name: 'Ann Customer', email: rt.seed.customer_email, ticket_url: `${rt.url}/Ticket/Display.html?id=${id}` });

    await rt.comment(id, 'Internal: out of warranty.');
    await rt.correspond(id, 'The invoice, and it still smokes.', { attachments: [{ filename: 'invoice.pdf', contentType: 'application/pdf', bytes: pdf }] });
    await until(async () => (await chatTexts(tg, thread.chatId)).length === 2, ARRIVES_MS, 'the correspondence');
    const [, second] = await chatTexts(tg, thread.chatId);
    const lines = second!.split('\n');
    expect(lines.slice(0, 2)).toEqual(['The invoice, and it still smokes.', '']);
    const link = await expectFileLine(lines[2]!, '[attachment: invoice.pdf, 20 KB] <link>', pdf, 'application/pdf');
    expect(link.startsWith(`${tg.gateway.url}/files/`)).toBe(true);
    expect((await tg.gateway.store.read.skipped.list(CONNECTOR)).map((s) => s.code)).toEqual(['TG_TICKET_PRIVATE_NOTE']);

    const form = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(5_000)]);
    await tg.sandbox.call('POST', `/_sandbox/chats/${thread.chatId}/agent_messages`, { text: 'Unplug it, please.', attachments: [file('steps.pdf', 'application/pdf', form)] });
    await until(async () => (await tg.gateway.store.read.deliveries.countByStatus(CONNECTOR)).delivered === 1, ARRIVES_MS, 'the agent reply');
    const own = await ownReplies(id);
    expect(own.map((t) => t.type)).toEqual(['Correspond']);
    expect(own[0]!.text).toMatch(/^\S.* \(via chat, ref [0-9a-f]{12}\):\n\nUnplug it, please\.$/);
    expect(own[0]!.files.map((f) => f.filename)).toEqual(['steps.pdf']);
    expect((await rt.download(own[0]!.files[0]!.id)).equals(form)).toBe(true);
    const row = (await tg.gateway.store.read.sql.get(`select external_id from deliveries where status = 'delivered'`)) as { external_id: string };
    expect(row.external_id).toBe(String(own[0]!.id));

    // The gateway's own correspondence is not posted back; the customer's next one is.
    await rt.correspond(id, 'Done, thanks.');
    await until(async () => (await chatTexts(tg, thread.chatId)).length === 3, ARRIVES_MS, 'the answer');
    expect((await chatTexts(tg, thread.chatId)).at(-1)).toBe('Done, thanks.');
    expect((await health(tg)).ok).toBe(true);
  });

  it('an agent reply whose answer was lost is written once: the retry finds it by its reference', { timeout: 60_000 }, async () => {
    const proxy = await startTicketSystemProxy(rt.url);
    const { tg, queue } = await helpDesk(rt, { url: proxy.url });
    const id = await rt.createTicket(queue, { subject: 'Lost answer', content: 'x' });
    const thread = await chatOfTicket(tg, id);
    proxy.dropPostAnswers = 1;
    await tg.sandbox.call('POST', `/_sandbox/chats/${thread.chatId}/agent_messages`, { text: 'Only once, please.' });
    await until(async () => (await tg.gateway.store.read.deliveries.countByStatus(CONNECTOR)).delivered === 1, 40_000, 'the delivery, after a retry');
    expect(proxy.dropPostAnswers).toBe(0);
    const own = await ownReplies(id);
    expect(own.map((t) => t.text.endsWith('\n\nOnly once, please.'))).toEqual([true]);
    const row = (await tg.gateway.store.read.sql.get(`select external_id from deliveries where status = 'delivered'`)) as { external_id: string };
    expect(row.external_id).toBe(String(own[0]!.id));
  });

  it('an HTML-only message arrives as text with its quoted history cut', async () => {
    const { tg, queue } = await helpDesk(rt);
    const id = await rt.createTicket(queue, { subject: 'Formatted', content: 'Plain start.' });
    const thread = await chatOfTicket(tg, id);
    const html = '<p>The <b>new</b> part, with <a href="https://example.test/x">a link</a>.</p><div>On Mon, 4 Mar 2024 at 09:12, Support &lt;support@example.test&gt; wrote:</div><blockquote><p>Old answer</p></blockquote>';
    await rt.correspond(id, html, { contentType: 'text/html' });
    await until(async () => (await chatTexts(tg, thread.chatId)).length === 2, ARRIVES_MS, 'the HTML message');
    expect((await chatTexts(tg, thread.chatId))[1]).toBe('The new part, with a link [https://example.test/x].');
  });
});
