/**
 * Memory: raw mail is downloaded in groups of bounded size, so big mail
 * never blows up memory, while UID order and the cursor hold. Real Dovecot
 * (test/support/mail-servers.ts); a real gateway where the whole connector
 * is meant.
 */
import { ImapFlow } from 'imapflow';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { MailIntake } from '../../../connectors/email/mail-intake.ts';
import { until } from '../../support/wait.ts';
import { appendRaw, fetchAll, mailServers, openImap } from '../../support/mail-servers.ts';
import { ARRIVES_MS, gatewayFor, inbound, prose, rawMail, watcherFor } from './hard-mail-support.ts';

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
    const takeGroup = MailIntake.prototype.takeGroup;
    const groupSpy = vi.spyOn(MailIntake.prototype, 'takeGroup').mockImplementation(async function (this: MailIntake, raws: readonly Buffer[]) {
      const outcomes = await takeGroup.call(this, raws);
      for (const _ of raws) events.push({ kind: 'take' });
      return outcomes;
    });
    onTestFinished(() => {
      takeSpy.mockRestore();
      groupSpy.mockRestore();
    });

    const tg = await gatewayFor(support);
    await until(async () => (await inbound(tg)).filter((m) => m.status === 'posted').length === 6, ARRIVES_MS, 'all six posted');
    expect((await inbound(tg)).map((m) => m.id)).toEqual([1, 2, 3, 4, 5, 6].map((n) => `<scan-${n}@customer.test>`));
    expect((await inbound(tg))[0]!.body).toMatch(/^scan 1\n\nscan 1 attached\n\n\[attachment: scan-1\.bin/);
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
    await until(async () => cursor()?.lastUid === 6, 20_000, 'all six handled');
    expect(sizes.every((s, i) => (i === 2 ? s > 20_000 : s < 10_000))).toBe(true);
    expect(downloads()).toEqual([[1, 2], [3], [4, 5], [6]]);
    expect(handled).toEqual([1, 2, 3, 4, 5, 6]);
    // Stored once per downloaded group, after its last mail: never ahead of a mail not yet handled.
    expect(cursorAtHandle).toEqual([0, 0, 2, 3, 3, 5]);
    expect(maxHeld()).toBe(2);
  });

  it('450 small mails and a big one: listed by two SEARCHes, only the big one sized, groups of maxGroupMails, marked seen silently', { timeout: 60_000 }, async () => {
    const support = await mailServers().addUser('many');
    const client = await openImap(support);
    const bigUid = 300;
    for (let n = 1; n <= 451; n++) {
      const text = n === bigUid ? prose(200_000) : `mail ${n}`;
      const { uid } = (await client.append('INBOX', rawMail({ id: `<m${n}@customer.test>`, subject: `m${n}`, text }))) || {};
      expect(uid).toBe(n);
    }
    const imap: string[] = [];
    const search = ImapFlow.prototype.search;
    const searchSpy = vi.spyOn(ImapFlow.prototype, 'search').mockImplementation(function (this: ImapFlow, query, options) {
      imap.push(`search ${JSON.stringify(query)}`);
      return search.call(this, query, options);
    });
    const fetch = ImapFlow.prototype.fetch;
    const fetchSpy = vi.spyOn(ImapFlow.prototype, 'fetch').mockImplementation(function (this: ImapFlow, range, query, options) {
      imap.push(`${query.source ? 'download' : 'sizes'} ${String(range)}`);
      return fetch.call(this, range, query, options);
    });
    const flagsAdd = ImapFlow.prototype.messageFlagsAdd;
    const flagsSpy = vi.spyOn(ImapFlow.prototype, 'messageFlagsAdd').mockImplementation(function (this: ImapFlow, range, flags, options) {
      imap.push(`seen ${String(range).split(',').length} silent=${String(options?.silent)}`);
      return flagsAdd.call(this, range, flags, options);
    });
    onTestFinished(() => [searchSpy, fetchSpy, flagsSpy].forEach((spy) => spy.mockRestore()));
    const handled: number[] = [];
    const { cursor } = watcherFor(support, async (_raw, uid) => void handled.push(uid));
    await until(async () => cursor()?.lastUid === 451, 30_000, 'all 451 handled');

    expect(handled).toEqual(Array.from({ length: 451 }, (_, i) => i + 1));
    const firstDownload = imap.findIndex((line) => line.startsWith('download'));
    // One round: the UIDs after the cursor, then those larger than a group's share (8 MiB / 100 mails).
    expect(imap.slice(0, firstDownload)).toEqual([`search {"uid":"1:*"}`, `search {"uid":"1:*","larger":${Math.floor((8 * 1024 * 1024) / 100)}}`]);
    expect(imap.filter((line) => line.startsWith('sizes'))).toEqual([`sizes ${bigUid}`]);
    const groups = imap.filter((line) => line.startsWith('download')).map((line) => line.slice('download '.length).split(',').map(Number));
    // Slices of 200 UIDs, downloaded in groups of at most 100 mails and 8 MiB, a small mail counted as a share: the
    // big one (over two shares) closes the group before it, and its own group holds fewer small ones.
    expect(groups.map((g) => [g[0], g[g.length - 1], g.length])).toEqual([[1, 100, 100], [101, 200, 100], [201, 299, 99], [300, 397, 98], [398, 400, 3], [401, 451, 51]]);
    expect(imap.filter((line) => line.startsWith('seen'))).toEqual(groups.map((g) => `seen ${g.length} silent=true`));
    const lastSeen = imap.findLastIndex((line) => line.startsWith('seen'));
    expect(imap.slice(0, lastSeen).filter((line) => line.startsWith('search'))).toHaveLength(2); // not one a slice
    const flags = (await fetchAll(support)).map((m) => m.flags.includes('\\Seen'));
    expect(flags.filter(Boolean)).toHaveLength(451);
  });
});
