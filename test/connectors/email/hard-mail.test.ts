/**
 * Mail that must not stall the mailbox or blow up memory: ids and bodies
 * beyond the bridge's limits, whatever `submit` still refuses, a mail the
 * handler keeps failing on, and raw mail downloaded in groups of bounded
 * size. Real Dovecot (test/support/mail-servers.ts); a real gateway where
 * the whole connector is meant.
 */
import { createHash } from 'node:crypto';
import { ImapFlow } from 'imapflow';
import pino from 'pino';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { EmailConnectorConfig } from '../../../connectors/email/config.ts';
import { fitAddress, fitBody, fitFullText, fitMessageId, MailIntake } from '../../../connectors/email/mail-intake.ts';
import { MailboxWatcher, type Cursor } from '../../../connectors/email/mailbox-watcher.ts';
import type { ConnectorContext, ConnectorState, SkipRecord, SubmitMessage } from '../../../src/connector/api.ts';
import { until } from '../../sandbox/support.ts';
import { startTestGateway, type TestGateway } from '../../support/gateway.ts';
import { appendRaw, fetchAll, mailServers, type MailUser } from '../../support/mail-servers.ts';

const ARRIVES_MS = 20_000;
const MARKER = /\n\[… message cut: (\d+) characters in all\]$/;

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

function rawMail(opts: { id: string; from?: string; subject: string; text: string; extra?: string[] }): string {
  return [
    `From: ${opts.from ?? 'Customer <c@customer.test>'}`, 'To: support@example.test', `Subject: ${opts.subject}`, `Message-ID: ${opts.id}`,
    'Date: Sun, 22 Nov 2026 10:00:00 +0000', ...(opts.extra ?? []), 'MIME-Version: 1.0', 'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: 8bit', '', opts.text.replace(/\n/g, '\r\n'), '',
  ].join('\r\n');
}

/** A Message-ID of exactly `length` characters, brackets included. */
function longId(length: number, tag: string): string {
  const domain = '@customer.test>';
  return `<${tag}${'x'.repeat(length - 1 - tag.length - domain.length)}${domain}`;
}

/** About `chars` characters of plain prose, 70-character lines, no quotes or signature. */
function prose(chars: number): string {
  const lines: string[] = [];
  let total = 0;
  for (let i = 0; total < chars; i++) {
    const line = `Line ${String(i).padStart(6, '0')} of a very long report about the kettle that will not boil.`;
    lines.push(line);
    total += line.length + 1;
  }
  return lines.join('\n');
}

async function gatewayFor(support: MailUser, extra: Record<string, unknown> = {}): Promise<TestGateway> {
  const servers = mailServers();
  return startTestGateway({
    connectors: [
      {
        name: 'mail', type: 'email', address: support.address, poll_seconds: 5, reconnect_max_seconds: 1,
        imap: { host: servers.imap.host, port: servers.imap.port, secure: false, user: support.user, password: support.password },
        smtp: { host: servers.smtp.host, port: servers.smtp.port, secure: false },
        ...extra,
      },
    ],
  });
}

interface InboundRow { id: string; status: string; body: string; fullText: string | null; thread: string; senderId: string }
const inbound = (tg: TestGateway) =>
  tg.gateway.store.sqlite
    .prepare(`select m.external_id as id, m.status, m.body, m.full_text as fullText, t.thread_key as thread, m.sender_id as senderId
              from inbound_messages m join threads t on t.id = m.thread where m.connector = 'mail' order by m.id`)
    .all() as InboundRow[];
const cursorOf = (tg: TestGateway) => tg.gateway.bridge.state.get('mail', 'cursor') as Cursor | undefined;

async function chatTexts(tg: TestGateway, chatId: string): Promise<string[]> {
  const all = (await tg.sandbox.call('GET', `/_sandbox/chats/${chatId}/messages`)).body.results as { type: string; sender_type: string; message: string }[];
  return all.filter((m) => m.type === 'msg' && m.sender_type === 'visitor').map((m) => m.message);
}

describe('mail beyond the bridge limits', () => {
  it('a 3,000-character Message-ID, a 2 MB body and a normal mail are all handled in order; the huge body is posted cut', { timeout: 60_000 }, async () => {
    const support = await mailServers().addUser('hard');
    const id = longId(3_000, 'long-');
    const big = prose(2_000_000);
    await appendRaw(support, rawMail({ id, subject: 'Long id', text: 'Hello from a long Message-ID.' }));
    await appendRaw(support, rawMail({ id: '<big@customer.test>', subject: 'Big report', text: big }));
    await appendRaw(support, rawMail({ id: '<normal@customer.test>', subject: 'Normal', text: 'Just a normal mail.' }));
    const tg = await gatewayFor(support);

    const hashed = `<${sha256(id)}@threadgate.invalid>`;
    // The cursor moves after the mail is handled (and flagged): wait for it too, not only for the posts.
    await until(() => inbound(tg).filter((m) => m.status === 'posted').length === 3 && cursorOf(tg)?.lastUid === 3, ARRIVES_MS, 'all three posted');
    const rows = inbound(tg);
    expect(rows.map((m) => m.id)).toEqual([hashed, '<big@customer.test>', '<normal@customer.test>']);
    expect(rows[0]!.thread).toBe(hashed);
    expect(rows[2]!.body).toBe('Normal\n\nJust a normal mail.');
    expect(cursorOf(tg)?.lastUid).toBe(3);

    // Posted: the first 100,000 characters of the body, then the marker line with the whole length.
    const whole = `Big report\n\n${big}`;
    const bigRow = rows[1]!;
    const match = MARKER.exec(bigRow.body);
    expect(match).not.toBeNull();
    expect(Number(match![1])).toBe(whole.length);
    expect(bigRow.body.slice(0, -match![0].length)).toBe(whole.slice(0, 100_000));
    // Stored: the full text, itself cut to 1,000,000 characters in all.
    expect(bigRow.fullText!.length).toBeLessThanOrEqual(1_000_000);
    expect(bigRow.fullText!.startsWith(big.slice(0, 900_000))).toBe(true);
    expect(bigRow.fullText).toMatch(MARKER);

    const chatId = tg.gateway.bridge.threads.byKey('mail', '<big@customer.test>')!.chatId!;
    const [posted] = await chatTexts(tg, chatId);
    expect(posted).toBe(bigRow.body);
  });

  it('a reply to a long Message-ID joins its thread; a 2,500-character sender is cut with a hash; nothing blocks the next mail', { timeout: 60_000 }, async () => {
    const support = await mailServers().addUser('hard2');
    const id = longId(2_500, 'root-');
    const sender = `${'s'.repeat(2_480)}@customer.test`;
    await appendRaw(support, rawMail({ id, subject: 'Root', text: 'First.' }));
    await appendRaw(support, rawMail({ id: '<reply@customer.test>', subject: 'Re: Root', text: 'Second.', extra: [`In-Reply-To: ${id}`, `References: ${id}`] }));
    await appendRaw(support, rawMail({ id: '<sender@customer.test>', from: `Long <${sender}>`, subject: 'Long sender', text: 'Third.' }));
    await appendRaw(support, rawMail({ id: '<after@customer.test>', subject: 'After', text: 'Fourth.' }));
    const tg = await gatewayFor(support);

    await until(() => inbound(tg).filter((m) => m.status === 'posted').length === 4, ARRIVES_MS, 'all four posted');
    const rows = inbound(tg);
    const hashed = `<${sha256(id)}@threadgate.invalid>`;
    expect(rows.map((m) => [m.id, m.thread])).toEqual([
      [hashed, hashed],
      ['<reply@customer.test>', hashed],
      ['<sender@customer.test>', '<sender@customer.test>'],
      ['<after@customer.test>', '<after@customer.test>'],
    ]);
    const cutSender = rows[2]!.senderId;
    expect(cutSender).toHaveLength(2_000);
    expect(cutSender).toBe(`${sender.slice(0, 1_935)}~${sha256(sender)}`);
  });
});

describe('fitting ids and text to the bridge', () => {
  it('cuts at the limits, never inside a surrogate pair, and leaves what fits alone', () => {
    expect(fitBody('short')).toBe('short');
    expect(fitBody('a'.repeat(100_000))).toBe('a'.repeat(100_000));
    expect(fitBody('a'.repeat(100_001))).toBe(`${'a'.repeat(100_000)}\n[… message cut: 100001 characters in all]`);
    const emoji = `${'a'.repeat(99_999)}😀tail`; // the pair would straddle the cut
    expect(fitBody(emoji)).toBe(`${'a'.repeat(99_999)}\n[… message cut: ${emoji.length} characters in all]`);
    const full = fitFullText('b'.repeat(1_500_000));
    expect(full).toHaveLength(1_000_000);
    expect(full).toMatch(/b\n\[… message cut: 1500000 characters in all\]$/);
    const id2000 = longId(2_000, 'ok-');
    expect(fitMessageId(id2000)).toBe(id2000);
    expect(fitMessageId(longId(2_001, 'no-'))).toMatch(/^<[0-9a-f]{64}@threadgate\.invalid>$/);
    expect(fitAddress('Ann@Customer.TEST')).toBe('ann@customer.test');
    const a = fitAddress(`${'q'.repeat(3_000)}@a.test`);
    const b = fitAddress(`${'q'.repeat(3_000)}@b.test`);
    expect([a.length, b.length]).toEqual([2_000, 2_000]);
    expect(a).not.toBe(b);
  });
});

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

/** A watcher of its own (no gateway) over `support`'s INBOX, with its state in memory. */
function watcherFor(support: MailUser, handle: (raw: Buffer, uid: number) => Promise<void>, options: ConstructorParameters<typeof MailboxWatcher>[4] = {}) {
  const servers = mailServers();
  const config = EmailConnectorConfig.parse({
    address: support.address, poll_seconds: 5, reconnect_max_seconds: 1,
    imap: { host: servers.imap.host, port: servers.imap.port, secure: false, user: support.user, password: support.password },
    smtp: { host: servers.smtp.host, port: servers.smtp.port, secure: false },
  });
  const values = new Map<string, unknown>();
  const state: ConnectorState = {
    get: async <T>(k: string) => values.get(k) as T | undefined,
    set: async (k, v) => void values.set(k, structuredClone(v)),
    delete: async (k) => void values.delete(k),
  };
  const watcher = new MailboxWatcher(config, state, pino({ level: 'silent' }), handle, options);
  const stop = new AbortController();
  const running = watcher.run(stop.signal);
  onTestFinished(async () => {
    stop.abort();
    await watcher.close();
    await running;
  });
  return { watcher, cursor: () => values.get('cursor') as Cursor | undefined };
}

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
    await until(() => cursor()?.lastUid === 3, 20_000, 'the cursor past the failing mail');
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
    onTestFinished(() => spy.mockRestore());
    const tg = await gatewayFor(support);
    await until(() => inbound(tg).some((m) => m.id === '<fine@customer.test>' && m.status === 'posted') && cursorOf(tg)?.lastUid === 2, ARRIVES_MS, 'the mail after it posted');
    expect(inbound(tg).map((m) => m.id)).toEqual(['<fine@customer.test>']);
    expect(spy.mock.calls.filter(([raw]) => raw.includes('<explode@customer.test>'))).toHaveLength(3);
    expect(cursorOf(tg)?.lastUid).toBe(2);
  });
});

describe('memory: raw mail is downloaded in groups of bounded size', () => {
  /** Records what the watcher downloads (FETCH with the source) and hands over, in order. */
  function recordDownloads() {
    const events: ({ kind: 'download'; uids: number[] } | { kind: 'take' })[] = [];
    const fetch = ImapFlow.prototype.fetch;
    const fetchSpy = vi.spyOn(ImapFlow.prototype, 'fetch').mockImplementation(function (this: ImapFlow, range, query, options) {
      if (query.source) events.push({ kind: 'download', uids: String(range).split(',').map(Number) });
      return fetch.call(this, range, query, options);
    });
    onTestFinished(() => fetchSpy.mockRestore());
    /** How many raw mails were downloaded and not yet handed over, at most, just after each download. */
    const maxHeld = () => {
      let held = 0;
      let max = 0;
      for (const e of events) {
        held += e.kind === 'download' ? e.uids.length : -1;
        max = Math.max(max, held);
      }
      return max;
    };
    return { events, maxHeld, downloads: () => events.flatMap((e) => (e.kind === 'download' ? [e.uids] : [])) };
  }

  it('6 mails of ~3 MB: the gateway never holds more than 2 at once (8 MiB groups), and posts all in order', { timeout: 60_000 }, async () => {
    const support = await mailServers().addUser('heavy');
    const sizes = new Map<number, number>();
    for (let n = 1; n <= 6; n++) {
      const attachment = Buffer.alloc(2_200_000, n).toString('base64').replace(/.{76}/g, '$&\r\n');
      const raw = [
        'From: Customer <c@customer.test>', `To: ${support.address}`, `Subject: scan ${n}`, `Message-ID: <scan-${n}@customer.test>`,
        'Date: Sun, 22 Nov 2026 10:00:00 +0000', 'MIME-Version: 1.0', 'Content-Type: multipart/mixed; boundary="b"', '',
        '--b', 'Content-Type: text/plain; charset=utf-8', '', `scan ${n} attached`, '--b',
        `Content-Type: application/octet-stream; name="scan-${n}.bin"`, 'Content-Transfer-Encoding: base64',
        `Content-Disposition: attachment; filename="scan-${n}.bin"`, '', attachment, '--b--', '',
      ].join('\r\n');
      const { uid } = await appendRaw(support, raw);
      sizes.set(uid!, Buffer.byteLength(raw));
    }
    expect(Math.min(...sizes.values())).toBeGreaterThan(2.9e6);
    const { events, maxHeld, downloads } = recordDownloads();
    const take = MailIntake.prototype.take;
    const takeSpy = vi.spyOn(MailIntake.prototype, 'take').mockImplementation(async function (this: MailIntake, raw: Buffer) {
      const outcome = await take.call(this, raw);
      events.push({ kind: 'take' });
      return outcome;
    });
    onTestFinished(() => takeSpy.mockRestore());

    const tg = await gatewayFor(support);
    await until(() => inbound(tg).filter((m) => m.status === 'posted').length === 6, ARRIVES_MS, 'all six posted');
    expect(inbound(tg).map((m) => m.id)).toEqual([1, 2, 3, 4, 5, 6].map((n) => `<scan-${n}@customer.test>`));
    expect(inbound(tg)[0]!.body).toMatch(/^scan 1\n\nscan 1 attached\n\n\[attachment: scan-1\.bin/);
    expect(downloads()).toEqual([[1, 2], [3, 4], [5, 6]]);
    for (const group of downloads()) expect(group.reduce((sum, uid) => sum + sizes.get(uid)!, 0)).toBeLessThanOrEqual(8 * 1024 * 1024);
    expect(maxHeld()).toBe(2);
  });

  it('maxGroupBytes bounds each download; a mail bigger than it is downloaded alone; UID order and the cursor hold', { timeout: 30_000 }, async () => {
    const support = await mailServers().addUser('groups');
    const sizes: number[] = [];
    for (const [n, chars] of [[1, 8_000], [2, 8_000], [3, 30_000], [4, 8_000], [5, 8_000], [6, 8_000]] as const) {
      const raw = rawMail({ id: `<g${n}@customer.test>`, subject: `g${n}`, text: prose(chars) });
      sizes.push(Buffer.byteLength(raw));
      await appendRaw(support, raw);
    }
    const { maxHeld, downloads, events } = recordDownloads();
    const handled: number[] = [];
    const cursorAtHandle: (number | undefined)[] = [];
    const { cursor } = watcherFor(
      support,
      async (_raw, uid) => {
        handled.push(uid);
        cursorAtHandle.push(cursor()?.lastUid);
        events.push({ kind: 'take' });
      },
      { maxGroupBytes: 20_000 },
    );
    await until(() => cursor()?.lastUid === 6, 20_000, 'all six handled');
    expect(sizes.every((s, i) => (i === 2 ? s > 20_000 : s < 10_000))).toBe(true);
    expect(downloads()).toEqual([[1, 2], [3], [4, 5], [6]]);
    expect(handled).toEqual([1, 2, 3, 4, 5, 6]);
    expect(cursorAtHandle).toEqual([0, 1, 2, 3, 4, 5]); // moved only after each mail was handled
    expect(maxHeld()).toBe(2);
  });
});
