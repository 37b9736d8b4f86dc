/**
 * A downloaded group of mails handled at once: one store write for the group
 * (`MailIntake.takeGroup` → `ctx.submitAll`), replies threaded against the
 * group's earlier mails, and the fallback to one mail at a time when the
 * group fails — against a real Dovecot mailbox.
 */
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { MailIntake } from '../../../connectors/email/mail-intake.ts';
import type { ThreadInfo } from '../../../connectors/email/thread-info.ts';
import { until } from '../../support/wait.ts';
import { appendRaw, mailServers } from '../../support/mail-servers.ts';
import { ARRIVES_MS, cursorOf, gatewayFor, inbound, rawMail, watcherFor } from './hard-mail-support.ts';

describe('the watcher with a group handler', () => {
  it('hands over groups of at most maxGroupMails; a single mail goes one by one; the cursor moves after each group', { timeout: 30_000 }, async () => {
    const support = await mailServers().addUser('group-watch');
    for (let n = 1; n <= 5; n++) await appendRaw(support, rawMail({ id: `<w${n}@customer.test>`, subject: `w${n}`, text: `mail ${n}` }));
    const groups: number[][] = [];
    const single: number[] = [];
    const cursorAtGroup: (number | undefined)[] = [];
    const { cursor } = watcherFor(support, async (_raw, uid) => void single.push(uid), {
      maxGroupMails: 2,
      handleGroup: async (mails) => {
        groups.push(mails.map((m) => m.uid));
        cursorAtGroup.push(cursor()?.lastUid);
      },
    });
    await until(async () => cursor()?.lastUid === 5, 20_000, 'all five handled');
    expect(groups).toEqual([[1, 2], [3, 4]]);
    expect(single).toEqual([5]);
    expect(cursorAtGroup).toEqual([0, 2]);
  });

  it('a group that fails is handled mail by mail, and the cursor still ends past all of it', { timeout: 30_000 }, async () => {
    const support = await mailServers().addUser('group-fail');
    for (let n = 1; n <= 4; n++) await appendRaw(support, rawMail({ id: `<f${n}@customer.test>`, subject: `f${n}`, text: `mail ${n}` }));
    const single: number[] = [];
    const { cursor, watcher } = watcherFor(support, async (_raw, uid) => void single.push(uid), {
      maxGroupMails: 2,
      handleGroup: async (mails) => {
        if (mails.some((m) => m.uid === 3)) throw new Error('group of 3 fails');
      },
    });
    await until(async () => cursor()?.lastUid === 4, 20_000, 'all four handled');
    expect(single).toEqual([3, 4]);
    // A group failing is not a session failure: no reconnect.
    expect(watcher.status.reconnects).toBe(0);
  });
});

describe('the e-mail connector taking a group', () => {
  it('threads replies against the group\'s earlier mails, builds the thread info chain, and records skips with it', { timeout: 30_000 }, async () => {
    const support = await mailServers().addUser('group-thread');
    await appendRaw(support, rawMail({ id: '<a@customer.test>', subject: 'Kettle broken', text: 'It does not boil.' }));
    await appendRaw(support, rawMail({ id: '<b@customer.test>', subject: 'Re: Kettle broken', text: 'Still broken.', extra: ['In-Reply-To: <a@customer.test>'] }));
    await appendRaw(support, rawMail({ id: '<c@customer.test>', from: 'Other <o@customer.test>', subject: 'Invoice', text: 'Where is it?' }));
    await appendRaw(support, rawMail({ id: '<d@customer.test>', subject: 'Re: Kettle broken', text: 'Any news?', extra: ['References: <a@customer.test> <b@customer.test>'] }));
    await appendRaw(support, rawMail({ id: '<own@customer.test>', from: `Support <${support.address}>`, subject: 'loop', text: 'our own' }));
    const takeGroup = vi.spyOn(MailIntake.prototype, 'takeGroup');
    const take = vi.spyOn(MailIntake.prototype, 'take');
    onTestFinished(() => {
      takeGroup.mockRestore();
      take.mockRestore();
    });

    const tg = await gatewayFor(support);
    await until(async () => (await inbound(tg)).filter((m) => m.status === 'posted').length === 4 && (await cursorOf(tg))?.lastUid === 5, ARRIVES_MS, 'four posted');
    expect(takeGroup).toHaveBeenCalledTimes(1);
    expect(takeGroup.mock.calls[0]![0]).toHaveLength(5);
    expect(take).not.toHaveBeenCalled();

    const rows = await inbound(tg);
    expect(rows.map((m) => [m.id, m.thread])).toEqual([
      ['<a@customer.test>', '<a@customer.test>'],
      ['<b@customer.test>', '<a@customer.test>'],
      ['<c@customer.test>', '<c@customer.test>'],
      ['<d@customer.test>', '<a@customer.test>'],
    ]);
    // Only a thread's first mail carries the subject in its body.
    expect(rows.map((m) => m.body)).toEqual(['Kettle broken\n\nIt does not boil.', 'Still broken.', 'Invoice\n\nWhere is it?', 'Any news?']);
    const info = (await tg.gateway.store.read.state.get('mail', 'thread:<a@customer.test>')) as ThreadInfo;
    expect(info).toMatchObject({ subject: 'Kettle broken', lastMessageId: '<d@customer.test>', references: ['<a@customer.test>', '<b@customer.test>', '<d@customer.test>'] });
    const skipped = await tg.gateway.store.read.sql.all<{ external_id: string; code: string }>(`select external_id, code from skipped_inbound where connector = 'mail'`);
    expect(skipped).toEqual([{ external_id: '<own@customer.test>', code: 'TG_EMAIL_OWN' }]);
  });
});
