/**
 * Mail beyond the bridge's limits: Message-IDs, senders and bodies too long
 * to store or post are handled in order, cut or hashed, and never stall the
 * mailbox. Real Dovecot (test/support/mail-servers.ts) and a real gateway.
 */
import { describe, expect, it } from 'vitest';
import { fitAddress, fitBody, fitFullText, fitMessageId } from '../../../connectors/email/fit-limits.ts';
import { attachmentLine } from '../../../connectors/email/attachments.ts';
import { until } from '../../support/wait.ts';
import { chatTexts } from '../../support/gateway.ts';
import { appendRaw, mailServers } from '../../support/mail-servers.ts';
import { ARRIVES_MS, cursorOf, gatewayFor, inbound, longId, prose, rawMail, sha256 } from './hard-mail-support.ts';

const MARKER = /\n\[… message cut: (\d+) characters in all\]$/;

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
    await until(async () => (await inbound(tg)).filter((m) => m.status === 'posted').length === 3 && (await cursorOf(tg))?.lastUid === 3, ARRIVES_MS, 'all three posted');
    const rows = (await inbound(tg));
    expect(rows.map((m) => m.id)).toEqual([hashed, '<big@customer.test>', '<normal@customer.test>']);
    expect(rows[0]!.thread).toBe(hashed);
    expect(rows[2]!.body).toBe('Normal\n\nJust a normal mail.');
    expect((await cursorOf(tg))?.lastUid).toBe(3);

    // Posted: the start of the body, then the marker line with the whole length, 100,000 characters in all.
    const whole = `Big report\n\n${big}`;
    const bigRow = rows[1]!;
    const match = MARKER.exec(bigRow.body);
    expect(match).not.toBeNull();
    expect(Number(match![1])).toBe(whole.length);
    expect(bigRow.body).toHaveLength(100_000);
    expect(bigRow.body.slice(0, -match![0].length)).toBe(whole.slice(0, 100_000 - match![0].length));
    // Stored: the full text, itself cut to 1,000,000 characters in all.
    expect(bigRow.fullText!.length).toBeLessThanOrEqual(1_000_000);
    expect(bigRow.fullText!.startsWith(big.slice(0, 900_000))).toBe(true);
    expect(bigRow.fullText).toMatch(MARKER);

    const chatId = (await tg.gateway.store.read.threads.byKey('mail', '<big@customer.test>'))!.chatId!;
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

    await until(async () => (await inbound(tg)).filter((m) => m.status === 'posted').length === 4, ARRIVES_MS, 'all four posted');
    const rows = (await inbound(tg));
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

describe('a long mail with a file', () => {
  it('a 300 KB body is cut to make room: the posted text ends with the cut marker and then the attachment line', { timeout: 60_000 }, async () => {
    // Guards against: the cut at 100,000 characters dropping the `[attachment: invoice.pdf, …]` line after the text.
    const support = await mailServers().addUser('longfile');
    const report = prose(300_000);
    const invoice = { filename: 'invoice.pdf', contentType: 'application/pdf', content: Buffer.alloc(24 * 1024, 7) };
    await appendRaw(support, rawMail({ id: '<long-file@customer.test>', subject: 'Quarterly report', text: report, attachment: invoice }));
    const tg = await gatewayFor(support);

    await until(async () => (await inbound(tg)).some((m) => m.status === 'posted'), ARRIVES_MS, 'the long mail posted');
    const [posted] = await chatTexts(tg, (await tg.gateway.store.read.threads.byKey('mail', '<long-file@customer.test>'))!.chatId!);
    const whole = `Quarterly report\n\n${report}`;
    // The attachment line carries the file's link (attachment-files.ts).
    const link = /\[attachment: invoice\.pdf, 24 KB\] (http\S+)$/.exec(posted!)?.[1];
    expect(link).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/files\//);
    const tail = `\n[… message cut: ${whole.length} characters in all]\n\n[attachment: invoice.pdf, 24 KB] ${link}`;
    expect(posted!.endsWith(tail)).toBe(true);
    expect(posted).toHaveLength(100_000);
    expect(posted!.slice(0, -tail.length)).toBe(whole.slice(0, 100_000 - tail.length));
  });
});

describe('fitting ids and text to the bridge', () => {
  it('cuts at the limits, never inside a surrogate pair, and leaves what fits alone', async () => {
    expect(fitBody('short')).toBe('short');
    expect(fitBody('a'.repeat(100_000))).toBe('a'.repeat(100_000));
    const marker = (n: number) => `\n[… message cut: ${n} characters in all]`;
    expect(fitBody('a'.repeat(100_001))).toBe(`${'a'.repeat(100_000 - marker(100_001).length)}${marker(100_001)}`);
    const keep = 100_000 - marker(100_010).length;
    const emoji = `${'a'.repeat(keep - 1)}😀${'t'.repeat(100_010 - keep - 1)}`; // the pair would straddle the cut
    expect(emoji).toHaveLength(100_010);
    expect(fitBody(emoji)).toBe(`${'a'.repeat(keep - 1)}${marker(100_010)}`);
    const pdf = { filename: 'invoice.pdf', contentType: 'application/pdf', size: 24 * 1024 };
    expect(fitBody('short', [attachmentLine(pdf)])).toBe('short\n\n[attachment: invoice.pdf, 24 KB]');
    // A list too long to keep whole: its first 10,000 characters, then how many more files there are.
    const many = Array.from({ length: 1_000 }, (_, i) => attachmentLine({ ...pdf, filename: `scan-${String(i).padStart(4, '0')}.pdf` }));
    const body = fitBody('b'.repeat(200_000), many);
    expect(body).toHaveLength(100_000);
    expect(body).toMatch(/b\n\[… message cut: 200000 characters in all\]\n\n\[attachment: scan-0000\.pdf, 24 KB\]\n/);
    expect(body).toMatch(/\[attachment: scan-0\d{3}\.pdf, 24 KB\]\n\[… and \d+ more attachments\]$/);
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
