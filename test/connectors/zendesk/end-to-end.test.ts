/**
 * The Zendesk connector in a real gateway, against the Zendesk counterpart
 * and the sandbox as the platform, with the settings of the docs (url,
 * email, api_token, poll_seconds): a new ticket becomes a chat; a public
 * comment with a PDF arrives with the file's signed link (downloaded from
 * the files host without the API credentials); an internal note never
 * arrives; an agent reply becomes one public comment by the gateway's user,
 * with its file, and is not posted back.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { chatTexts } from '../../support/gateway.ts';
import { until } from '../../support/wait.ts';
import { ARRIVES_MS, CONNECTOR, chatOfTicket, gatewayComments, health, helpDesk, zendesk } from './support.ts';
import { expectFileLine } from '../../support/file-line.ts';

const pdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(20_000), Buffer.from([0, 0, 255])]);
const file = (name: string, contentType: string, bytes: Buffer) => ({ type: 'file', name, content_type: contentType, content_base64: bytes.toString('base64') });

describe('Zendesk connector, end to end', () => {
  it('a ticket becomes a chat; a public comment with a PDF arrives linked, an internal note never; an agent reply is one public comment', { timeout: 90_000 }, async () => {
    const desk = await zendesk();
    const tg = await helpDesk(desk);
    const id = await desk.openTicket({ subject: 'Printer on fire', text: 'Smoke everywhere.\nPlease help.' });
    const thread = await chatOfTicket(tg, id);
    await until(async () => (await chatTexts(tg, thread.chatId)).length === 1, ARRIVES_MS, 'the opening message');
    expect(await chatTexts(tg, thread.chatId)).toEqual(['Printer on fire\n\nSmoke everywhere.\nPlease help.']);
    expect(thread.key).toBe(`${desk.host}/tickets/${id}`);
    const visitor = (await tg.sandbox.call('GET', `/_sandbox/chats/${thread.chatId}`)).body.visitor;
    expect(visitor.variables).toMatchObject({ email: desk.customer.email, ticket_url: `${desk.url}/agent/tickets/${id}` });

    await desk.internalNote(id, 'Internal: out of warranty.');
    await desk.comment(id, 'The invoice, and it still smokes.', { files: [{ filename: 'invoice.pdf', contentType: 'application/pdf', content: pdf }] });
    await until(async () => (await chatTexts(tg, thread.chatId)).length === 2, ARRIVES_MS, 'the public comment');
    const [, second] = await chatTexts(tg, thread.chatId);
    const lines = second!.split('\n');
    expect(lines.slice(0, 2)).toEqual(['The invoice, and it still smokes.', '']);
    await expectFileLine(lines[2]!, '[attachment: invoice.pdf, 20 KB] <link>', pdf, 'application/pdf');
    expect((await tg.gateway.store.read.skipped.list(CONNECTOR)).map((s) => s.code)).toEqual(['TG_TICKET_PRIVATE_NOTE']);
    // The file came from the other host, which never saw the API credentials.
    expect(desk.fileHostRequests.map((r) => [r.status, r.authorization])).toEqual([[200, false]]);

    const form = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(5_000)]);
    await tg.sandbox.call('POST', `/_sandbox/chats/${thread.chatId}/agent_messages`, { text: 'Unplug it, please.', attachments: [file('steps.pdf', 'application/pdf', form)] });
    await until(async () => (await tg.gateway.store.read.deliveries.countByStatus(CONNECTOR)).delivered === 1, ARRIVES_MS, 'the agent reply');
    const own = gatewayComments(desk, id);
    expect(own.map((c) => c.public)).toEqual([true]);
    expect(own[0]!.body).toMatch(/^\S.* \(via chat, ref [0-9a-f]{12}\):\n\nUnplug it, please\.$/);
    expect(own[0]!.attachments.map((a) => a.file_name)).toEqual(['steps.pdf']);
    expect(desk.fileBytes(own[0]!.attachments[0]!.id).equals(form)).toBe(true);
    const row = (await tg.gateway.store.read.sql.get(`select external_id from deliveries where status = 'delivered'`)) as { external_id: string };
    expect(row.external_id).toBe(String(own[0]!.id));

    // The gateway's own comment is not posted back (the export lists the ticket for it); the customer's next one is.
    desk.settle();
    const polls = (await health(tg)).details.polls as number;
    await until(async () => (await health(tg)).details.polls >= polls + 2, ARRIVES_MS, 'two polls listing the gateway’s comment');
    expect(await chatTexts(tg, thread.chatId)).toHaveLength(2);
    await desk.comment(id, 'Done, thanks.');
    await until(async () => (await chatTexts(tg, thread.chatId)).length === 3, ARRIVES_MS, 'the answer');
    expect((await chatTexts(tg, thread.chatId)).at(-1)).toBe('Done, thanks.');
    expect((await health(tg)).ok).toBe(true);
  });

  it('replies: internal writes agent replies and, when asked, suggestions as internal notes', { timeout: 60_000 }, async () => {
    const desk = await zendesk();
    const tg = await helpDesk(desk, { extra: { replies: 'internal', suggestions_as_internal_notes: true } });
    const id = await desk.openTicket({ subject: 'Refund', text: 'Order 77.' });
    const thread = await chatOfTicket(tg, id);
    await tg.sandbox.call('POST', `/_sandbox/chats/${thread.chatId}/reply_suggestions`, { suggestion: 'Offer a voucher.' });
    await until(async () => gatewayComments(desk, id).length === 1, ARRIVES_MS, 'the suggestion as an internal note');
    await tg.sandbox.call('POST', `/_sandbox/chats/${thread.chatId}/agent_messages`, { text: 'Refund issued for order 77.' });
    await until(async () => gatewayComments(desk, id).length === 2, ARRIVES_MS, 'the reply as an internal note');
    const own = gatewayComments(desk, id);
    expect(own.map((c) => c.public)).toEqual([false, false]);
    expect(own[0]!.body).toMatch(/^Suggested reply \(not sent to the customer, ref [0-9a-f]{12}\):\n\nOffer a voucher\.$/);
    expect(own[1]!.body).toMatch(/\n\nRefund issued for order 77\.$/);
  });
});
