/**
 * How the connector treats the mailbox: UIDVALIDITY changes, what happens
 * to a mail after import, refused SMTP recipients, reply suggestions, and a
 * health report that tells a wrong password from a working connection.
 */
import { describe, expect, it } from 'vitest';
import { until } from '../../support/wait.ts';
import { startTestGateway, type TestGateway } from '../../support/gateway.ts';
import { appendRaw, fetchAll, mailServers, openImap, type MailUser } from '../../support/mail-servers.ts';
import { emailConnector } from './settings.ts';

const ARRIVES_MS = 10_000;

function rawMail(n: number, to: string, extra: string[] = []): string {
  return [
    `From: Customer <c${n}@customer.test>`, `To: ${to}`, `Subject: case ${n}`, `Message-ID: <case-${n}.${to}>`,
    'Date: Sun, 22 Nov 2026 10:00:00 +0000', ...extra, 'Content-Type: text/plain; charset=utf-8', '', `text ${n}`, '',
  ].join('\r\n');
}

async function gatewayFor(support: MailUser, extra: Record<string, unknown> = {}, imapExtra: Record<string, unknown> = {}): Promise<TestGateway> {
  return startTestGateway({ connectors: [emailConnector(support, { reconnect_max_seconds: 1, ...extra }, imapExtra)] });
}

const inbound = async (tg: TestGateway) =>
  (await tg.gateway.store.read.sql.all(`select external_id as id, status from inbound_messages where connector = 'mail' order by id`)) as { id: string; status: string }[];

describe('the mailbox', () => {
  it('a new UIDVALIDITY (the mailbox recreated) rescans it without posting anything twice', { timeout: 60_000 }, async () => {
    const support = await mailServers().addUser('uv');
    for (let i = 1; i <= 3; i++) await appendRaw(support, rawMail(i, support.address), 'Support');
    const tg = await gatewayFor(support, {}, { mailbox: 'Support' });
    await until(async () => (await inbound(tg)).filter((m) => m.status === 'posted').length === 3, ARRIVES_MS, '3 posted');
    const before = ((await tg.gateway.store.read.state.get('mail', 'cursor')) as { uidValidity: string }).uidValidity;

    const admin = await openImap(support);
    await admin.mailboxDelete('Support');
    await admin.mailboxCreate('Support');
    for (let i = 1; i <= 4; i++) await admin.append('Support', rawMail(i, support.address)); // the same 3, and one new
    const cursor = async () => (await tg.gateway.store.read.state.get('mail', 'cursor')) as { uidValidity: string; lastUid: number };
    await until(async () => (await inbound(tg)).length === 4 && (await cursor()).lastUid === 4, 30_000, 'the new mail after the rescan');
    const after = (await cursor());
    expect(after.uidValidity).not.toBe(before);
    expect(after.lastUid).toBe(4);
    expect((await inbound(tg)).map((m) => m.id)).toEqual([1, 2, 3, 4].map((i) => `<case-${i}.${support.address}>`));
  });

  it('after_import move:<folder> moves each stored mail out of the inbox; none leaves it unread', async () => {
    const mover = await mailServers().addUser('mover');
    await appendRaw(mover, rawMail(1, mover.address));
    const tg = await gatewayFor(mover, { after_import: 'move:Imported' });
    await until(async () => (await fetchAll(mover, 'Imported')).length === 1, ARRIVES_MS, 'the mail in Imported');
    expect(await fetchAll(mover, 'INBOX')).toEqual([]);
    expect((await inbound(tg))).toHaveLength(1);

    const keeper = await mailServers().addUser('keeper');
    await appendRaw(keeper, rawMail(2, keeper.address));
    const tg2 = await gatewayFor(keeper, { after_import: 'none' });
    await until(async () => (await inbound(tg2)).length === 1, ARRIVES_MS, 'the mail stored');
    await new Promise((r) => setTimeout(r, 300));
    expect((await fetchAll(keeper))[0]!.flags).not.toContain('\\Seen');
  });

  it('health says disconnected with the last error for a wrong password, and connected once it works', async () => {
    const support = await mailServers().addUser('health');
    const wrong = await gatewayFor(support, {}, { password: 'not-the-password' });
    await until(async () => typeof (await wrong.call('GET', '/readyz')).body.connectors.mail.details.last_error === 'string', ARRIVES_MS, 'an error');
    const bad = (await wrong.call('GET', '/readyz')).body.connectors.mail;
    expect(bad.ok).toBe(false);
    expect(bad.details.connected).toBe(false);
    expect(String(bad.details.last_error)).toMatch(/^IMAP authentication failed/);
    expect(JSON.stringify(bad)).not.toContain('not-the-password');

    const right = await gatewayFor(support);
    // Connected first, then idling once the (empty) mailbox was caught up on: wait for both.
    await until(async () => (await right.call('GET', '/readyz')).body.connectors.mail.details.idle === true, ARRIVES_MS, 'idle');
    const good = (await right.call('GET', '/readyz')).body.connectors.mail;
    expect(good.ok).toBe(true);
    expect(good.details).toMatchObject({ connected: true, idle: true, mailbox: 'INBOX', last_error: null });
  });
});

describe('replies', () => {
  it('a recipient the SMTP server refuses (5xx) dead-letters the delivery with the server text', async () => {
    const support = await mailServers().addUser('refused');
    // A customer at a domain our OpenSMTPD does not relay for: it answers 550.
    await appendRaw(support, rawMail(9, support.address).replace('c9@customer.test', 'someone@elsewhere.invalid'));
    const tg = await gatewayFor(support);
    await until(async () => (await tg.gateway.store.read.threads.byKey('mail', `<case-9.${support.address}>`))?.chatId != null, ARRIVES_MS, 'the chat');
    const chatId = (await tg.gateway.store.read.threads.byKey('mail', `<case-9.${support.address}>`))!.chatId!;
    await tg.sandbox.call('POST', `/_sandbox/chats/${chatId}/agent_messages`, { text: 'hello?' });
    await until(async () => (await tg.gateway.store.read.deliveries.countByStatus('mail')).dead === 1, ARRIVES_MS, 'a dead delivery');
    const row = (await tg.gateway.store.read.sql.get(`select error from deliveries where status = 'dead'`)) as { error: string };
    expect(row.error).toMatch(/^TG_EMAIL_SMTP_REJECTED: SMTP 5\d\d: /);
  });

  it('a reply suggestion is recorded as skipped, with the reason, and not mailed', async () => {
    const servers = mailServers();
    const support = await servers.addUser('sugg');
    const customer = await servers.addUser('sugg-customer', 'customer.test');
    await appendRaw(support, rawMail(5, support.address).replace('c5@customer.test', customer.address));
    const tg = await gatewayFor(support);
    await until(async () => (await tg.gateway.store.read.threads.byKey('mail', `<case-5.${support.address}>`))?.chatId != null, ARRIVES_MS, 'the chat');
    const chatId = (await tg.gateway.store.read.threads.byKey('mail', `<case-5.${support.address}>`))!.chatId!;
    await tg.sandbox.call('POST', `/_sandbox/chats/${chatId}/reply_suggestions`, { suggestion: 'Say sorry' });
    await until(async () => (await tg.gateway.store.read.deliveries.countByStatus('mail')).skipped === 1, ARRIVES_MS, 'the suggestion handled');
    const row = (await tg.gateway.store.read.sql.get(`select status, error, event_type as "eventType" from deliveries where connector = 'mail' and status = 'skipped'`)) as Record<string, string>;
    expect(row).toEqual({ status: 'skipped', error: "reply suggestions are not mailed: only agents' messages are", eventType: 'reply_suggestion_created' });
    expect((await tg.gateway.store.read.deliveries.countByStatus('mail')).delivered ?? 0).toBe(0);
    await new Promise((r) => setTimeout(r, 300));
    expect(await fetchAll(customer)).toEqual([]);
  });
});
