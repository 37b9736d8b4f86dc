/**
 * Which files of a mail are kept and how they are listed
 * (connectors/email/attachment-files.ts): in the mail's order, each kept file
 * with its link, a file over the per-file limit or past the mail's budget
 * listed as not kept, never dropped; with keep: false the plain list.
 */
import { describe, expect, it } from 'vitest';
import { keptFileLines } from '../../../connectors/email/attachment-files.ts';
import type { MailFile } from '../../../connectors/email/parsed-mail.ts';
import type { FileStore } from '../../../src/connector/api.ts';

const KB = 1024;
const file = (filename: string, size: number, inline = false): MailFile => ({ filename, contentType: inline ? 'image/png' : 'application/pdf', size, content: Buffer.alloc(size, 7), inline });

function memoryFiles(): FileStore & { kept: string[] } {
  const kept: string[] = [];
  return {
    kept,
    put: async (f) => {
      kept.push(f.filename);
      return { id: `id${kept.length}`, url: `https://gw.test/files/id${kept.length}?e=1&s=x`, size: f.content.length };
    },
  };
}

describe('kept file lines', () => {
  it('keeps files in order until a per-file limit or the mail\'s budget says no, listing every one', async () => {
    const store = memoryFiles();
    const lines = await keptFileLines(
      [file('logo.png', 2 * KB, true), file('a.pdf', 40 * KB), file('big.pdf', 200 * KB), file('b.pdf', 50 * KB), file('c.pdf', 9 * KB)],
      { keep: true, max_file_bytes: 100 * KB, max_mail_bytes: 100 * KB },
      store,
    );
    expect(lines).toEqual([
      '[inline image: logo.png, 2 KB] https://gw.test/files/id1?e=1&s=x',
      '[attachment: a.pdf, 40 KB] https://gw.test/files/id2?e=1&s=x',
      '[attachment: big.pdf, 200 KB — not kept: over the 100 KB limit per file]',
      '[attachment: b.pdf, 50 KB] https://gw.test/files/id3?e=1&s=x',
      '[attachment: c.pdf, 9 KB — not kept: over the 100 KB limit per mail]',
    ]);
    expect(store.kept).toEqual(['logo.png', 'a.pdf', 'b.pdf']);
  });

  it('with keep: false lists the attachments by name only, inline images left out, and keeps nothing', async () => {
    const store = memoryFiles();
    const lines = await keptFileLines([file('logo.png', KB, true), file('a.pdf', 40 * KB)], { keep: false, max_file_bytes: 1, max_mail_bytes: 1 }, store);
    expect(lines).toEqual(['[attachment: a.pdf, 40 KB]']);
    expect(store.kept).toEqual([]);
  });
});
