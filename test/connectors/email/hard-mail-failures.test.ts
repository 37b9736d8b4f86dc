/**
 * Mail that cannot be handled must not stall the mailbox: what `submit`
 * still refuses is recorded as skipped, and a mail the handler keeps failing
 * on is given up after 3 tries so the ones after it go through. Real Dovecot
 * (test/support/mail-servers.ts); a real gateway where the whole connector is
 * meant.
 */
import pino from 'pino';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { MailIntake } from '../../../connectors/email/mail-intake.ts';
import type { ConnectorContext, SkipRecord, SubmitMessage } from '../../../src/connector/api.ts';
import { until } from '../../support/wait.ts';
import { appendRaw, fetchAll, mailServers } from '../../support/mail-servers.ts';
import { ARRIVES_MS, cursorOf, gatewayFor, inbound, rawMail, watcherFor } from './hard-mail-support.ts';

describe('what submit still refuses', () => {
  function stubContext(submit: (m: SubmitMessage) => Promise<never>) {
    const skipped: SkipRecord[] = [];
    const values = new Map<string, unknown>();
    const ctx = {
      name: 'mail',
      submit,
      skip: async (record: SkipRecord) => (skipped.push(record), { duplicate: false }),
      close: async () => undefined,
      threads: { get: async () => undefined, byThreadId: async () => undefined, byReference: async () => undefined, attach: async () => { throw new Error('unused'); } },
      state: { get: async (k: string) => values.get(k), set: async (k: string, v: unknown) => void values.set(k, v), delete: async (k: string) => void values.delete(k) },
      routes: { add: () => undefined },
      logger: pino({ level: 'silent' }),
    } as unknown as ConnectorContext;
    return { ctx, skipped };
  }
  const mail = Buffer.from(rawMail({ id: '<refused@customer.test>', subject: 'Refused', text: 'Body.' }));

  it('TG_SUBMIT_INVALID is recorded as skipped (TG_EMAIL_UNSUBMITTABLE, the error message as reason), so the cursor can move on', async () => {
    const refusal = Object.assign(new Error('senderId: must have at most 2000 characters'), { code: 'TG_SUBMIT_INVALID' });
    const { ctx, skipped } = stubContext(async () => { throw refusal; });
    const outcome = await new MailIntake(ctx, 'support@example.test').take(mail);
    expect(outcome).toEqual({ kind: 'skipped', code: 'TG_EMAIL_UNSUBMITTABLE', reason: refusal.message });
    expect(skipped).toEqual([{ messageId: '<refused@customer.test>', code: 'TG_EMAIL_UNSUBMITTABLE', reason: refusal.message, senderId: 'c@customer.test', summary: 'Refused' }]);
  });

  it('a mail the watcher gave up on is recorded as TG_EMAIL_UNHANDLED with the last error', async () => {
    const { ctx, skipped } = stubContext(async () => { throw new Error('unused'); });
    const outcome = await new MailIntake(ctx, 'support@example.test').recordUnhandled(mail, new Error('a bug of ours'));
    expect(outcome).toEqual({ kind: 'skipped', code: 'TG_EMAIL_UNHANDLED', reason: 'handling failed repeatedly: a bug of ours' });
    expect(skipped).toMatchObject([{ messageId: '<refused@customer.test>', code: 'TG_EMAIL_UNHANDLED', senderId: 'c@customer.test' }]);
  });

  it('any other submit error is thrown (the mail is tried again), not skipped', async () => {
    const { ctx, skipped } = stubContext(async () => { throw Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' }); });
    await expect(new MailIntake(ctx, 'support@example.test').take(mail)).rejects.toThrow('database is locked');
    expect(skipped).toEqual([]);
  });
});

describe('a mail the handler keeps failing on', () => {
  it('is given up after 3 consecutive failures (onGiveUp records it), left unread in the mailbox, and the next mail is handled', { timeout: 30_000 }, async () => {
    const support = await mailServers().addUser('poison');
    for (const n of [1, 2, 3]) await appendRaw(support, rawMail({ id: `<p${n}@customer.test>`, subject: `mail ${n}`, text: `text ${n}` }));
    const calls: number[] = [];
    const givenUp: { uid: number; error: string; raw: string }[] = [];
    const { watcher, cursor } = watcherFor(
      support,
      async (_raw, uid) => {
        calls.push(uid);
        if (uid === 2) throw new Error('boom on 2');
      },
      { onGiveUp: async (raw, uid, error) => void givenUp.push({ uid, error: (error as Error).message, raw: raw.toString('utf8') }) },
    );
    await until(async () => cursor()?.lastUid === 3, 20_000, 'the cursor past the failing mail');
    expect(calls).toEqual([1, 2, 2, 2, 3]);
    expect(givenUp).toHaveLength(1);
    expect(givenUp[0]).toMatchObject({ uid: 2, error: 'boom on 2' });
    expect(givenUp[0]!.raw).toContain('<p2@customer.test>');
    expect(watcher.status.lastError).toMatch(/^handling UID 2 failed \(2 of 3 tries\): boom on 2$/);
    const flags = (await fetchAll(support)).map((m) => m.flags.includes('\\Seen'));
    expect(flags).toEqual([true, false, true]);
  });

  it('in the gateway: a mail whose handling always throws does not keep the ones after it from being posted', { timeout: 30_000 }, async () => {
    const support = await mailServers().addUser('poison-gw');
    await appendRaw(support, rawMail({ id: '<explode@customer.test>', subject: 'explode', text: 'x' }));
    await appendRaw(support, rawMail({ id: '<fine@customer.test>', subject: 'fine', text: 'y' }));
    const take = MailIntake.prototype.take;
    const spy = vi.spyOn(MailIntake.prototype, 'take').mockImplementation(async function (this: MailIntake, raw: Buffer) {
      if (raw.includes('<explode@customer.test>')) throw new Error('a bug of ours');
      return take.call(this, raw);
    });
    // The group the two mails are downloaded in fails as a whole too: then they are taken one by one.
    const takeGroup = MailIntake.prototype.takeGroup;
    const groupSpy = vi.spyOn(MailIntake.prototype, 'takeGroup').mockImplementation(async function (this: MailIntake, raws: readonly Buffer[]) {
      if (raws.some((raw) => raw.includes('<explode@customer.test>'))) throw new Error('a bug of ours');
      return takeGroup.call(this, raws);
    });
    onTestFinished(() => {
      spy.mockRestore();
      groupSpy.mockRestore();
    });
    const tg = await gatewayFor(support);
    await until(async () => (await inbound(tg)).some((m) => m.id === '<fine@customer.test>' && m.status === 'posted') && (await cursorOf(tg))?.lastUid === 2, ARRIVES_MS, 'the mail after it posted');
    expect((await inbound(tg)).map((m) => m.id)).toEqual(['<fine@customer.test>']);
    expect(spy.mock.calls.filter(([raw]) => raw.includes('<explode@customer.test>'))).toHaveLength(3);
    expect(groupSpy).toHaveBeenCalled();
    expect((await cursorOf(tg))?.lastUid).toBe(2);
  });
});
