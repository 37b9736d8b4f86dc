/**
 * The Zendesk connector's sessions, against the Zendesk counterpart: solving
 * a ticket ends its session, reopening it starts a new one with the next
 * comment; after a restart of the gateway, what happened meanwhile arrives
 * and nothing is posted twice; a ticket created solved arrives and ends at
 * once; only the configured brand's and group's tickets are conversations.
 */
import { describe, expect, it } from 'vitest';
import { chatTexts } from '../../support/gateway.ts';
import { until } from '../../support/wait.ts';
import { ARRIVES_MS, chatOfTicket, chatsOf, health, helpDesk, threadOf, zendesk } from './support.ts';

describe('Zendesk connector, sessions', () => {
  it('solving a ticket ends the session; reopening starts a new one with the next comment', { timeout: 60_000 }, async () => {
    const desk = await zendesk();
    const tg = await helpDesk(desk);
    const id = await desk.openTicket({ subject: 'VPN down', text: 'Cannot connect.' });
    const thread = await chatOfTicket(tg, id);
    await desk.setStatus(id, 'solved');
    await until(async () => (await chatsOf(tg, thread.threadId))[0]?.ended === true, ARRIVES_MS, 'the session to end');

    await desk.setStatus(id, 'open');
    await desk.comment(id, 'It is down again.');
    await until(async () => (await chatsOf(tg, thread.threadId)).length === 2, ARRIVES_MS, 'a second chat');
    const [latest, earlier] = await chatsOf(tg, thread.threadId);
    expect([earlier!.ended, latest!.ended]).toEqual([true, false]);
    await until(async () => (await chatTexts(tg, latest!.id)).length === 1, ARRIVES_MS, 'the comment in the new chat');
    expect(await chatTexts(tg, latest!.id)).toEqual(['It is down again.']);
  });

  it('after a restart, what happened meanwhile arrives, solving ends the session, and nothing is posted twice', { timeout: 90_000 }, async () => {
    const desk = await zendesk();
    const first = await helpDesk(desk);
    const id = await desk.openTicket({ subject: 'Mail bounces', text: 'Every mail to sales bounces.' });
    const thread = await chatOfTicket(first, id);
    await desk.comment(id, 'Still bouncing.');
    await until(async () => (await chatTexts(first, thread.chatId)).length === 2, ARRIVES_MS, 'the comment');
    await first.gateway.close();

    await desk.comment(id, 'Bouncing while you were away.');
    await desk.comment(id, 'Solved it myself.', { status: 'solved' });
    const tg = await helpDesk(desk, { after: first });
    await until(async () => (await chatsOf(tg, thread.threadId))[0]?.ended === true, ARRIVES_MS, 'the session to end');
    const polls = (await health(tg)).details.polls as number;
    await until(async () => (await health(tg)).details.polls >= polls + 3, ARRIVES_MS, 'more polls');
    expect(await chatTexts(tg, thread.chatId)).toEqual(['Mail bounces\n\nEvery mail to sales bounces.', 'Still bouncing.', 'Bouncing while you were away.', 'Solved it myself.']);
    expect((await chatsOf(tg, thread.threadId)).length).toBe(1);
  });

  it('a ticket created solved arrives and its session ends', { timeout: 60_000 }, async () => {
    const desk = await zendesk();
    const tg = await helpDesk(desk);
    const id = await desk.openTicket({ subject: 'Password reset', text: 'Done on the phone.', status: 'solved' });
    const thread = await chatOfTicket(tg, id);
    await until(async () => (await chatsOf(tg, thread.threadId))[0]?.ended === true, ARRIVES_MS, 'the session to end');
    expect(await chatTexts(tg, thread.chatId)).toEqual(['Password reset\n\nDone on the phone.']);
  });

  it('with brand and group set, only tickets of both are conversations', { timeout: 60_000 }, async () => {
    const desk = await zendesk();
    const [brand, otherBrand] = [...desk.store.brands.keys()];
    const [group, otherGroup] = [...desk.store.groups.keys()];
    const tg = await helpDesk(desk, { extra: { brand, group: String(group) } });
    const elsewhere = [
      await desk.openTicket({ subject: 'Other brand', text: 'x', brand: otherBrand!, group: group! }),
      await desk.openTicket({ subject: 'Other group', text: 'x', brand: brand!, group: otherGroup! }),
      await desk.openTicket({ subject: 'No group', text: 'x', brand: brand! }),
    ];
    const ours = await desk.openTicket({ subject: 'Ours', text: 'x', brand: brand!, group: group! });
    await chatOfTicket(tg, ours);
    const polls = (await health(tg)).details.polls as number;
    await until(async () => (await health(tg)).details.polls >= polls + 2, ARRIVES_MS, 'more polls');
    for (const id of elsewhere) expect(await threadOf(tg, id)).toBeUndefined();
    expect((await health(tg)).details).toMatchObject({ brand, group });
  });
});
