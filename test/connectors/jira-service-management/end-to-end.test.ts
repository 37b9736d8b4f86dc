/**
 * The Jira Service Management connector in a real gateway, against the
 * counterpart of a Jira Cloud site and the sandbox as the platform, with the
 * settings the docs show (url, email, api_token, service_desk, poll_seconds):
 * a new request becomes a chat; a public comment with a PDF arrives with the
 * file's signed link; an internal comment never arrives; an agent reply
 * becomes one public comment by the gateway's account, with its file, and is
 * not posted back — also when the answer to its write was lost and the
 * delivery is retried.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { chatTexts } from '../../support/gateway.ts';
import { startTicketSystemProxy } from '../../support/ticket-system-proxy.ts';
import { until } from '../../support/wait.ts';
import { ARRIVES_MS, CONNECTOR, agentAnswers, chatOfRequest, health, helpDesk, jiraSite } from './support.ts';
import { expectFileLine } from '../../support/file-line.ts';

const pdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(20_000), Buffer.from([0, 0, 255])]);
const delivered = async (tg: Awaited<ReturnType<typeof helpDesk>>) => (await tg.gateway.store.read.deliveries.countByStatus(CONNECTOR)).delivered ?? 0;

describe('Jira Service Management connector, end to end', () => {
  it('a request becomes a chat; a public comment with a PDF arrives linked, an internal one never; an agent reply is one public comment', { timeout: 60_000 }, async () => {
    const jsm = await jiraSite();
    const tg = await helpDesk(jsm);
    const { id, key } = await jsm.openRequest(jsm.customer, { summary: 'Printer on fire', description: 'Smoke everywhere.\nPlease help.' });
    const thread = await chatOfRequest(tg, id);
    await until(async () => (await chatTexts(tg, thread.chatId)).length === 1, ARRIVES_MS, 'the opening message');
    expect(await chatTexts(tg, thread.chatId)).toEqual(['Printer on fire\n\nSmoke everywhere.\nPlease help.']);
    expect(thread.key).toBe(`${new URL(jsm.url).host}/issue/${id}`);
    const visitor = (await tg.sandbox.call('GET', `/_sandbox/chats/${thread.chatId}`)).body.visitor;
    expect(visitor.variables).toMatchObject({ name: 'Ann Customer', email: jsm.customer.email, ticket_url: `${jsm.url}/browse/${key}` });

    await jsm.comment(jsm.agent, id, 'Internal: out of warranty.', { internal: true });
    await jsm.comment(jsm.customer, id, 'The invoice, and it still smokes.', { files: [{ filename: 'invoice.pdf', contentType: 'application/pdf', content: pdf }] });
    await until(async () => (await chatTexts(tg, thread.chatId)).length === 2, ARRIVES_MS, 'the public comment');
    const lines = (await chatTexts(tg, thread.chatId))[1]!.split('\n');
    expect(lines.slice(0, 2)).toEqual(['The invoice, and it still smokes.', '']);
    await expectFileLine(lines[2]!, '[attachment: invoice.pdf, 20 KB] <link>', pdf, 'application/pdf');
    expect((await tg.gateway.store.read.skipped.list(CONNECTOR)).map((s) => s.code)).toEqual(['TG_TICKET_PRIVATE_NOTE']);

    const form = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(5_000)]);
    await agentAnswers(tg, thread.chatId, 'Unplug it, please.', [{ name: 'steps.pdf', contentType: 'application/pdf', bytes: form }]);
    await until(async () => (await delivered(tg)) === 1, ARRIVES_MS, 'the agent reply');
    const own = jsm.gatewayComments(id);
    expect(own).toHaveLength(1);
    expect(own[0]!.public).toBe(true);
    expect(own[0]!.body).toMatch(/^\S.* \(via chat, ref [0-9a-f]{12}\):\n\nUnplug it, please\. \[\^steps\.pdf\] _\(5 kB\)_$/);
    const files = own[0]!.fileIds.map((f) => jsm.store.files.get(f)!);
    expect(files.map((f) => [f.filename, f.public, f.content.equals(form)])).toEqual([['steps.pdf', true, true]]);
    const row = (await tg.gateway.store.read.sql.get(`select external_id from deliveries where status = 'delivered'`)) as { external_id: string };
    expect(row.external_id).toBe(String(own[0]!.id));

    // The gateway's own comment is not posted back; the customer's next one is.
    await jsm.comment(jsm.customer, id, 'Done, thanks.');
    await until(async () => (await chatTexts(tg, thread.chatId)).length === 3, ARRIVES_MS, 'the answer');
    expect((await chatTexts(tg, thread.chatId)).at(-1)).toBe('Done, thanks.');
    expect((await health(tg)).ok).toBe(true);
  });

  it('an agent reply whose answer was lost is written once: the retry finds it by its reference', { timeout: 60_000 }, async () => {
    const jsm = await jiraSite();
    const proxy = await startTicketSystemProxy(jsm.url);
    const tg = await helpDesk(jsm, { url: proxy.url });
    const { id } = await jsm.openRequest(jsm.customer, { summary: 'Lost answer', description: 'x' });
    const thread = await chatOfRequest(tg, id);
    proxy.dropPostAnswers = 1;
    await agentAnswers(tg, thread.chatId, 'Only once, please.');
    await until(async () => (await delivered(tg)) === 1, 40_000, 'the delivery, after a retry');
    expect(proxy.dropPostAnswers).toBe(0);
    const own = jsm.gatewayComments(id);
    expect(own.map((c) => c.body.endsWith('\n\nOnly once, please.'))).toEqual([true]);
    const row = (await tg.gateway.store.read.sql.get(`select external_id from deliveries where status = 'delivered'`)) as { external_id: string };
    expect(row.external_id).toBe(String(own[0]!.id));
  });
});
