/**
 * The Zammad connector in a real gateway, against the Zammad counterpart and
 * the sandbox as the platform, with the settings of the docs (url, token,
 * group, poll_seconds): a ticket becomes a chat; a public article with a PDF
 * arrives with the file's signed link; an internal one never arrives; an
 * agent reply becomes one public email article by the gateway's user, with
 * its files, and is not posted back — also when the answer to its write was
 * lost and the delivery is retried.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatTexts } from '../../support/gateway.ts';
import { startTicketSystemProxy } from '../../support/ticket-system-proxy.ts';
import { until } from '../../support/wait.ts';
import { startZammad, type TestZammad } from '../../support/zammad/zammad-counterpart.ts';
import { ARRIVES_MS, CONNECTOR, chatOfTicket, gatewayArticles, health, helpDesk } from './support.ts';
import { expectFileLine } from '../../support/file-line.ts';

let zammad: TestZammad;
beforeAll(async () => {
  zammad = await startZammad();
});
afterAll(() => zammad.close());

const pdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(20_000), Buffer.from([0, 0, 255])]);
const file = (name: string, contentType: string, bytes: Buffer) => ({ type: 'file', name, content_type: contentType, content_base64: bytes.toString('base64') });

describe('Zammad connector, end to end', () => {
  it('a ticket becomes a chat; a public article with a PDF arrives linked, an internal one never; an agent reply is one public email article', { timeout: 60_000 }, async () => {
    const { tg, group } = await helpDesk(zammad);
    const id = await zammad.customer.openTicket(group, { title: 'Printer on fire', body: 'Smoke everywhere.\nPlease help.' });
    const thread = await chatOfTicket(tg, id);
    await until(async () => (await chatTexts(tg, thread.chatId)).length === 1, ARRIVES_MS, 'the opening message');
    expect(await chatTexts(tg, thread.chatId)).toEqual(['Printer on fire\n\nSmoke everywhere.\nPlease help.']);
    expect(thread.key).toBe(`${new URL(zammad.url).host}/ticket/${id}`);
    const visitor = (await tg.sandbox.call('GET', `/_sandbox/chats/${thread.chatId}`)).body.visitor;
    expect(visitor.variables).toMatchObject({ name: 'Ann Customer', email: 'ann@customer.example.com', ticket_url: `${zammad.url}/#ticket/zoom/${id}` });

    await zammad.staff.internalNote(id, 'Internal: out of warranty.');
    await zammad.customer.reply(id, 'The invoice, and it still smokes.', { files: [{ filename: 'invoice.pdf', contentType: 'application/pdf', bytes: pdf }] });
    await until(async () => (await chatTexts(tg, thread.chatId)).length === 2, ARRIVES_MS, 'the public article');
    const [, second] = await chatTexts(tg, thread.chatId);
    const lines = second!.split('\n');
    expect(lines.slice(0, 2)).toEqual(['The invoice, and it still smokes.', '']);
    const link = await expectFileLine(lines[2]!, '[attachment: invoice.pdf, 20 KB] <link>', pdf, 'application/pdf');
    expect(link.startsWith(`${tg.gateway.url}/files/`)).toBe(true);
    expect((await tg.gateway.store.read.skipped.list(CONNECTOR)).map((s) => s.code)).toEqual(['TG_TICKET_PRIVATE_NOTE']);

    const form = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(5_000)]);
    await tg.sandbox.call('POST', `/_sandbox/chats/${thread.chatId}/agent_messages`, { text: 'Unplug it, please.', attachments: [file('steps.pdf', 'application/pdf', form)] });
    await until(async () => (await tg.gateway.store.read.deliveries.countByStatus(CONNECTOR)).delivered === 1, ARRIVES_MS, 'the agent reply');
    const own = await gatewayArticles(zammad, id);
    expect(own.map((a) => [a.type, a.internal, a.sender, a.to, a.subject, a.content_type])).toEqual([['email', false, 'Agent', 'ann@customer.example.com', 'Printer on fire', 'text/plain']]);
    expect(own[0]!.body).toMatch(/^\S.* \(via chat, ref [0-9a-f]{12}\):\n\nUnplug it, please\.$/);
    expect(own[0]!.attachments.map((f: { filename: string }) => f.filename)).toEqual(['steps.pdf']);
    expect((await zammad.staff.download(id, own[0]!.id, own[0]!.attachments[0]!.id)).equals(form)).toBe(true);
    const row = (await tg.gateway.store.read.sql.get(`select external_id from deliveries where status = 'delivered'`)) as { external_id: string };
    expect(row.external_id).toBe(String(own[0]!.id));

    // The customer sees the reply; the gateway's own article is not posted back, the customer's next one is.
    expect((await zammad.customer.articles(id)).some((a) => a.id === own[0]!.id)).toBe(true);
    await zammad.customer.reply(id, 'Done, thanks.');
    await until(async () => (await chatTexts(tg, thread.chatId)).length === 3, ARRIVES_MS, 'the answer');
    expect((await chatTexts(tg, thread.chatId)).at(-1)).toBe('Done, thanks.');
    expect(zammad.server.searchErrors).toEqual([]);
    expect((await health(tg)).ok).toBe(true);
  });

  it('an agent reply whose answer was lost is written once: the retry finds it by its reference', { timeout: 60_000 }, async () => {
    const proxy = await startTicketSystemProxy(zammad.url);
    const { tg, group } = await helpDesk(zammad, { url: proxy.url });
    const id = await zammad.customer.openTicket(group, { title: 'Lost answer', body: 'x' });
    const thread = await chatOfTicket(tg, id);
    proxy.dropPostAnswers = 1;
    await tg.sandbox.call('POST', `/_sandbox/chats/${thread.chatId}/agent_messages`, { text: 'Only once, please.' });
    await until(async () => (await tg.gateway.store.read.deliveries.countByStatus(CONNECTOR)).delivered === 1, 40_000, 'the delivery, after a retry');
    expect(proxy.dropPostAnswers).toBe(0);
    const own = await gatewayArticles(zammad, id);
    expect(own.map((a) => a.body.endsWith('\n\nOnly once, please.'))).toEqual([true]);
    const row = (await tg.gateway.store.read.sql.get(`select external_id from deliveries where status = 'delivered'`)) as { external_id: string };
    expect(row.external_id).toBe(String(own[0]!.id));
  });

  it('an HTML article arrives as text with its quoted history cut', async () => {
    const { tg, group } = await helpDesk(zammad);
    const id = await zammad.customer.openTicket(group, { title: 'Formatted', body: 'Plain start.' });
    const thread = await chatOfTicket(tg, id);
    const html = '<p>The <b>new</b> part, with <a href="https://example.test/x">a link</a>.</p><div>On Mon, 4 Mar 2024 at 09:12, Support &lt;support@example.test&gt; wrote:</div><blockquote><p>Old answer</p></blockquote>';
    await zammad.customer.reply(id, html, { contentType: 'text/html' });
    await until(async () => (await chatTexts(tg, thread.chatId)).length === 2, ARRIVES_MS, 'the HTML article');
    expect((await chatTexts(tg, thread.chatId))[1]).toBe('The new part, with a link [https://example.test/x].');
  });
});
