/**
 * The Slack connector in a real gateway, against the Slack counterpart as
 * the workspace and the sandbox as the platform, with the settings of the
 * docs: a customer's message becomes a chat, from its sender by name; a
 * file shared in the thread arrives as a signed link that downloads byte for
 * byte; an agent's reply becomes one message of the app in that Slack thread,
 * with its file, and is not posted back; bots' messages never arrive, edits
 * and deletions are recorded as skipped; a bad or stale signature is refused
 * with 401 and submits nothing.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { chatTexts } from '../../support/gateway.ts';
import { sleep, until } from '../../support/wait.ts';
import { agentReplies, ARRIVES_MS, chatOf, CONNECTOR, deliveryRows, gatewayFor, health, slack, textsWhen } from './support.ts';
import { expectFileLine } from '../../support/file-line.ts';

describe('Slack connector, end to end', () => {
  it('a customer’s text and file reach the platform in one thread; an agent’s reply and file land in the Slack thread, once', { timeout: 60_000 }, async () => {
    const s = await slack();
    const tg = await gatewayFor(s);
    const root = await s.customerSays(s.support, 'My order 77 is late. Ask <@' + s.colleague.id + '> &amp; me.');
    const chatId = await chatOf(tg, s.support.id, root.ts);
    expect(await textsWhen(tg, chatId, 1)).toEqual(['My order 77 is late. Ask @Sam Colleague & me.']);
    const visitor = (await tg.sandbox.call('GET', `/_sandbox/chats/${chatId}`)).body.visitor;
    expect(visitor.variables).toMatchObject({ name: 'Ann', email: 'ann@customer.test', slack_user_id: s.customer.id, slack_channel: s.support.id, slack_team_id: s.ws.teamId, slack_thread_url: `${s.ws.url}archives/${s.support.id}/p${root.ts.replace('.', '')}` });

    const pdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(30_000)]);
    await s.customerSharesFile(s.support, { name: 'invoice.pdf', mimetype: 'application/pdf', content: pdf }, { threadTs: root.ts, text: 'The invoice' });
    const [, second] = await textsWhen(tg, chatId, 2);
    const lines = second!.split('\n');
    expect(lines.slice(0, 2)).toEqual(['The invoice', '']);
    await expectFileLine(lines[2]!, '[attachment: invoice.pdf, 29 KB] <link>', pdf, 'application/pdf');

    const steps = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(5_000)]);
    await agentReplies(tg, chatId, 'Sorry! It ships today. <Steps> attached.', [{ name: 'steps.pdf', contentType: 'application/pdf', content: steps }]);
    await until(async () => (await deliveryRows(tg)).some((r) => r.status === 'delivered'), ARRIVES_MS, 'the agent’s reply');
    const posted = s.botMessages(s.support, root.ts);
    expect(posted.map((m) => m.text)).toEqual([expect.stringMatching(/^\*\S.*\*: Sorry! It ships today\. &lt;Steps&gt; attached\.$/), '']);
    expect(posted[1]!.files.map((id) => s.ws.files.get(id)!.name)).toEqual(['steps.pdf']);
    expect(s.fileBytes(posted[1]!.files[0]!).equals(steps)).toBe(true);
    expect((await deliveryRows(tg)).map((r) => [r.status, r.external_id])).toEqual([['delivered', posted[0]!.ts]]);

    // The app's own messages come back as events (Slack sends them): never posted to the platform.
    await until(() => s.events.attempts.length >= 4, ARRIVES_MS, 'the events of the app’s own messages');
    await s.customerSays(s.support, 'Thanks!', { threadTs: root.ts });
    expect((await textsWhen(tg, chatId, 3)).at(-1)).toBe('Thanks!');
    await sleep(300);
    expect(await chatTexts(tg, chatId)).toHaveLength(3);
    expect((await health(tg)).ok).toBe(true);
  });

  it('bots’ messages never arrive; edits and deletions are recorded as skipped; other channels are ignored', { timeout: 60_000 }, async () => {
    const s = await slack();
    const tg = await gatewayFor(s);
    const root = await s.customerSays(s.support, 'First');
    const chatId = await chatOf(tg, s.support.id, root.ts);
    await (await s.otherBotSays(s.support, 'Deploy finished', { threadTs: root.ts })).delivered;
    await (await s.customerSays(s.elsewhere, 'Not for support')).delivered;
    await s.edit(s.support, root.ts, 'First (edited)');
    await s.remove(s.support, root.ts);
    await s.customerSays(s.support, 'Second', { threadTs: root.ts });
    expect(await textsWhen(tg, chatId, 2)).toEqual(['First', 'Second']);
    const skipped = await tg.gateway.store.read.skipped.list(CONNECTOR);
    expect(skipped.map((r) => r.code).sort()).toEqual(['TG_SLACK_BOT_MESSAGE', 'TG_SLACK_MESSAGE_DELETED', 'TG_SLACK_MESSAGE_EDITED']);
    expect(await tg.gateway.store.read.threads.byKey(CONNECTOR, `${s.elsewhere.id}/${s.ws.list(s.elsewhere.id)[0]!.ts}`)).toBeUndefined();
  });

  it('a bad or stale signature is refused with 401 TG_SIGNATURE_INVALID and submits nothing; no secret is logged', { timeout: 30_000 }, async () => {
    const s = await slack();
    const logLines: string[] = [];
    const tg = await gatewayFor(s, { logLines });
    const url = `${tg.gateway.url}/connectors/${CONNECTOR}/events`;
    const message = s.ws.addMessage({ channel: s.support.id, user: s.customer.id, text: 'forged' });
    const body = JSON.stringify(s.events.envelope({ type: 'message', channel: s.support.id, user: s.customer.id, text: 'forged', ts: message.ts }));
    const now = Math.floor(Date.now() / 1000);
    for (const headers of [{}, s.events.signedHeaders(body, now, 'not-the-signing-secret-at-all-00'), s.events.signedHeaders(body, now - 6 * 60), s.events.signedHeaders(`${body} `, now)]) {
      const answer = await s.events.post(url, body, headers);
      expect([answer.status, (JSON.parse(answer.text) as { code: string }).code]).toEqual([401, 'TG_SIGNATURE_INVALID']);
    }
    const good = await s.events.post(url, body, s.events.signedHeaders(body, now));
    expect(good.status).toBe(200);
    expect(await textsWhen(tg, await chatOf(tg, s.support.id, message.ts), 1)).toEqual(['forged']);
    const threads = (await tg.gateway.store.read.sql.all(`select count(*) as n from inbound_messages where connector = ?`, [CONNECTOR])) as { n: number }[];
    expect(Number(threads[0]!.n)).toBe(1);
    const log = logLines.join('\n');
    expect(log).toMatch(/Slack signature check failed: X-Slack-Signature does not match/);
    expect(log).toMatch(/more than 5 minutes old/);
    for (const secret of [s.bot.token, s.signingSecret, s.events.signedHeaders(body, now)['x-slack-signature']!.slice(3)]) expect(log).not.toContain(secret);
    expect((await health(tg)).details).toMatchObject({ team: s.ws.teamName, team_id: s.ws.teamId, bot_user: 'threadgate', bot_user_id: s.bot.id, channels: [s.support.id] });
  });
});
