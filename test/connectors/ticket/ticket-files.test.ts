/**
 * A ticket's files through the system-neutral poller, with the in-memory
 * ticket system (./memory-desk.ts) and the recording context standing in for
 * the bridge and its file store: which message each file goes with, the
 * lines under the text, the limits, files of private or own notes, and a
 * download that fails for now (the message is tried again, posted once).
 * Redmine's side (which journal named which file, the HTTP download) is
 * tested against the real Redmine in redmine-files.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { FileLimits } from '../../../connectors/ticket/kept-files.ts';
import { TicketPoller } from '../../../connectors/ticket/ticket-poller.ts';
import { recordingContext } from '../webhook/recording-context.ts';
import { GATEWAY, MemoryDesk } from './memory-desk.ts';

const signal = new AbortController().signal;
const bytes = (n: number, fill = 7) => Buffer.alloc(n, fill);
const LINK = /https:\/\/gw\.example\.test\/files\/file-\d+\?e=0&s=recorded/;

async function started(limits: Partial<FileLimits> = {}) {
  const desk = new MemoryDesk();
  const ctx = recordingContext('desk');
  const poller = new TicketPoller(desk, ctx, 1, { keep: true, max_file_bytes: 10_000, max_note_bytes: 25_000, ...limits });
  await poller.round(signal);
  return { desk, ctx, poller };
}

describe('ticket files through the poller (any adapter)', () => {
  it('the opening’s files go with it, a note’s with the note; a note of files only is a message of the lines', async () => {
    const { desk, ctx, poller } = await started();
    const invoice = desk.file('invoice.pdf', bytes(2_048, 1));
    const photo = desk.file('photo.png', bytes(300, 2));
    desk.open('1', 'Broken', 'See the files.', { attachments: [invoice, photo] });
    const log = desk.file('error.log', bytes(5_000, 3));
    desk.add('1', { attachments: [log] });
    desk.add('1', { text: 'And one more.', attachments: [desk.file('more.txt', bytes(10, 4))] });
    await poller.round(signal);

    const bodies = ctx.submits.map((s) => s.body.replace(new RegExp(LINK, 'g'), '<link>'));
    expect(bodies).toEqual([
      'Broken\n\nSee the files.\n\n[attachment: invoice.pdf, 2 KB] <link>\n[attachment: photo.png, 300 B] <link>',
      '[attachment: error.log, 5 KB] <link>',
      'And one more.\n\n[attachment: more.txt, 10 B] <link>',
    ]);
    expect(ctx.puts.map((p) => [p.filename, p.content.length])).toEqual([['invoice.pdf', 2_048], ['photo.png', 300], ['error.log', 5_000], ['more.txt', 10]]);
    expect(ctx.puts[0]!.content.equals(bytes(2_048, 1))).toBe(true);
  });

  it('over a limit or not handed out: listed as not kept, never dropped; a file larger than listed is refused as it arrives', async () => {
    const { desk, ctx, poller } = await started();
    desk.open('1', 'T', 'd');
    desk.add('1', {
      text: 'Files',
      attachments: [
        desk.file('big.iso', bytes(12_000)),
        desk.file('a.bin', bytes(9_000)),
        desk.file('b.bin', bytes(9_000)),
        desk.file('c.bin', bytes(9_000)), // the note's 25,000 bytes are spent
        desk.file('gone.txt', bytes(10), { gone: true }),
        desk.file('liar.bin', bytes(11_000), { listedSize: 100 }),
      ],
    });
    await poller.round(signal);
    expect(ctx.submits[1]!.body.split('\n').map((l) => l.replace(LINK, '<link>'))).toEqual([
      'Files',
      '',
      '[attachment: big.iso, 12 KB — not kept: over the 10 KB limit per file]',
      '[attachment: a.bin, 9 KB] <link>',
      '[attachment: b.bin, 9 KB] <link>',
      '[attachment: c.bin, 9 KB — not kept: over the 24 KB limit per note]',
      '[attachment: gone.txt, 10 B — not kept: MemoryDesk did not hand it out]',
      '[attachment: liar.bin, 100 B — not kept: over the 24 KB limit per note]',
    ]);
    expect(ctx.puts.map((p) => p.filename)).toEqual(['a.bin', 'b.bin']);
  });

  it('with keep: false the files are listed by name and size, nothing downloaded or stored', async () => {
    const { desk, ctx, poller } = await started({ keep: false });
    desk.open('1', 'T', 'd', { attachments: [desk.file('invoice.pdf', bytes(2_048))] });
    desk.add('1', { attachments: [desk.file('log.txt', bytes(5))] });
    await poller.round(signal);
    expect(ctx.submits.map((s) => s.body)).toEqual(['T\n\nd\n\n[attachment: invoice.pdf, 2 KB]', '[attachment: log.txt, 5 B]']);
    expect(desk.downloads).toBe(0);
    expect(ctx.puts).toEqual([]);
  });

  it('files of a private note or a private ticket are neither kept nor posted; the gateway’s own files are not posted back', async () => {
    const { desk, ctx, poller } = await started();
    desk.open('1', 'T', 'd');
    desk.add('1', { private: true, attachments: [desk.file('internal.pdf', bytes(100))] });
    desk.add('1', { author: GATEWAY, text: '**Agent** (via chat, ref 0123456789ab):\n\nHere.', attachments: [desk.file('form.pdf', bytes(100))] });
    desk.add('1', { author: GATEWAY, attachments: [desk.file('form2.pdf', bytes(100))] });
    desk.open('2', 'Secret', 'x', { private: true, attachments: [desk.file('secret.pdf', bytes(100))] });
    desk.add('2', { attachments: [desk.file('secret2.pdf', bytes(100))] });
    await poller.round(signal);
    expect(ctx.submits.map((s) => s.body)).toEqual(['T\n\nd']);
    expect(ctx.skips.map((s) => [s.messageId, s.code])).toEqual([
      ['desk.test/t/1#e1', 'TG_TICKET_PRIVATE_NOTE'],
      ['desk.test/t/2#opened', 'TG_TICKET_PRIVATE_ISSUE'],
      ['desk.test/t/2#e4', 'TG_TICKET_PRIVATE_ISSUE'],
    ]);
    expect(desk.downloads).toBe(0);
    expect(ctx.puts).toEqual([]);
  });

  it('a download that fails for now fails the round before anything is stored; the next round posts the message once', async () => {
    const { desk, ctx, poller } = await started();
    desk.open('1', 'T', 'd');
    const first = desk.file('first.bin', bytes(100));
    const second = desk.file('second.bin', bytes(200));
    desk.add('1', { text: 'Two files', attachments: [first, second] });
    desk.failDownloadOf.add(second.id);
    await expect(poller.round(signal)).rejects.toThrow('connection reset while downloading');
    expect(ctx.submits.map((s) => s.body)).toEqual(['T\n\nd']);
    expect(ctx.puts).toEqual([]);
    await poller.round(signal);
    expect(ctx.submits.map((s) => s.body.replace(new RegExp(LINK, 'g'), '<link>'))).toEqual([
      'T\n\nd',
      'Two files\n\n[attachment: first.bin, 100 B] <link>\n[attachment: second.bin, 200 B] <link>',
    ]);
    expect(ctx.puts.map((p) => p.filename)).toEqual(['first.bin', 'second.bin']);
    expect(poller.status.givenUp).toBe(0);
  });

  it('a ticket taken up from its present is opened by a note of files only', async () => {
    const desk = new MemoryDesk();
    desk.open('1', 'Old', 'It jams.', { attachments: [desk.file('old.jpg', bytes(50))] });
    desk.tick(120);
    const ctx = recordingContext('desk');
    const poller = new TicketPoller(desk, ctx, 1);
    await poller.round(signal);
    desk.add('1', { attachments: [desk.file('new.jpg', bytes(60))] });
    await poller.round(signal);
    expect(ctx.submits.map((s) => s.body.replace(new RegExp(LINK, 'g'), '<link>'))).toEqual([
      'Old\n\nIt jams.\n\n[attachment: old.jpg, 50 B] <link>',
      '[attachment: new.jpg, 60 B] <link>',
    ]);
  });
});
