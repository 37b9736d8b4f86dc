/**
 * A customer's files in Redmine reach the chat, end to end against the run's
 * real Redmine and the sandbox: files uploaded with a new issue go with its
 * opening message, a note that only attaches a file is a message of its
 * line, a note with text and a file has the line under the text; each kept
 * file's link on the gateway downloads the very bytes uploaded, a file over
 * `max_file_bytes` is listed as not kept, and a private note's file is
 * neither posted nor kept. With `keep: false` the lines carry no link.
 */
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { chatTexts } from '../../support/gateway.ts';
import { redmine, type TestRedmine } from '../../support/redmine.ts';
import { until } from '../../support/wait.ts';
import { ARRIVES_MS, CONNECTOR, chatOfIssue, helpDesk } from './support.ts';

let rm: TestRedmine;
beforeAll(async () => {
  rm = await redmine();
}, 120_000);

const pdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(20_000), Buffer.from([0, 0, 255])]);
const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(3_000)]);
const log = Buffer.from('12:00 paper jam\n12:01 paper jam\n');
const disk = randomBytes(60_000);
const LINK = / (http\S+)$/;

describe('Redmine connector, a customer’s files', () => {
  it('are kept and linked under the text of their message; the links give the bytes back; over the limit listed, private ones left out', { timeout: 90_000 }, async () => {
    const { tg, project } = await helpDesk(rm, { extra: { attachments: { max_file_bytes: 50_000 } } });
    const issue = await rm.createIssue(project, {
      subject: 'Broken part',
      description: 'See the files.',
      uploads: [await rm.upload('invoice.pdf', pdf, 'application/pdf'), await rm.upload('photo.png', png, 'image/png')],
    });
    const thread = await chatOfIssue(tg, rm, issue);
    await rm.addNote(issue, '', { uploads: [await rm.upload('printer.log', log, 'text/plain')] });
    await rm.addNote(issue, 'And the label.', { uploads: [await rm.upload('label.png', png, 'image/png')] });
    await rm.addNote(issue, 'The disk image.', { uploads: [await rm.upload('disk.img', disk)] });
    await rm.addNote(issue, 'Internal: warranty scan.', { private: true, uploads: [await rm.upload('warranty.pdf', pdf, 'application/pdf', rm.seed.admin_key)] });
    await rm.addNote(issue, 'Any news?');
    await until(async () => (await chatTexts(tg, thread.chatId)).length === 5, ARRIVES_MS * 2, 'the opening and four notes');

    const texts = await chatTexts(tg, thread.chatId);
    expect(texts.map((t) => t.split('\n').map((l) => l.replace(LINK, ' <link>')).join('\n'))).toEqual([
      'Broken part\n\nSee the files.\n\n[attachment: invoice.pdf, 20 KB] <link>\n[attachment: photo.png, 3 KB] <link>',
      `[attachment: printer.log, ${log.length} B] <link>`,
      'And the label.\n\n[attachment: label.png, 3 KB] <link>',
      'The disk image.\n\n[attachment: disk.img, 59 KB — not kept: over the 49 KB limit per file]',
      'Any news?',
    ]);
    const links = texts.flatMap((t) => t.split('\n')).flatMap((l) => l.match(LINK)?.[1] ?? []);
    expect(links.every((l) => l.startsWith(`${tg.gateway.url}/files/`))).toBe(true);
    const downloads = await Promise.all(links.map(async (l) => {
      const res = await fetch(l);
      return { status: res.status, type: res.headers.get('content-type'), bytes: Buffer.from(await res.arrayBuffer()) };
    }));
    expect(downloads.map((d) => [d.status, d.type])).toEqual([[200, 'application/pdf'], [200, 'image/png'], [200, 'text/plain'], [200, 'image/png']]);
    const uploaded = [pdf, png, log, png];
    expect(downloads.map((d, i) => d.bytes.equals(uploaded[i]!))).toEqual([true, true, true, true]);

    // The private note (and the file Redmine split off it): recorded as skipped, its file never kept.
    expect((await tg.gateway.store.read.skipped.list(CONNECTOR)).map((s) => s.code)).toEqual(['TG_TICKET_PRIVATE_NOTE']);
    expect(await tg.gateway.store.read.sql.get('select count(*) as n from files')).toEqual({ n: 4 });
  });

  it('with keep: false the files are listed by name and size, without a link, nothing stored', async () => {
    const { tg, project } = await helpDesk(rm, { extra: { attachments: { keep: false } } });
    const issue = await rm.createIssue(project, { subject: 'Scan', uploads: [await rm.upload('scan.pdf', pdf, 'application/pdf')] });
    const thread = await chatOfIssue(tg, rm, issue);
    await rm.addNote(issue, '', { uploads: [await rm.upload('photo.png', png, 'image/png')] });
    await until(async () => (await chatTexts(tg, thread.chatId)).length === 2, ARRIVES_MS, 'the opening and the note');
    expect(await chatTexts(tg, thread.chatId)).toEqual(['Scan\n\n[attachment: scan.pdf, 20 KB]', '[attachment: photo.png, 3 KB]']);
    expect(await tg.gateway.store.read.sql.get('select count(*) as n from files')).toEqual({ n: 0 });
  });
});
