/**
 * The file store keeps the same bytes once: a connector that keeps the same
 * file (name, type, bytes) again within the hour — a mail read again after a
 * crash, a message retried after its files were kept — gets the first row
 * and its link back. Another name, another connector, or a copy older than
 * the hour is a new row. On both store backends.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createFileLinks } from '../../src/bridge/file-links.ts';
import { FileService } from '../../src/bridge/files.ts';
import { openTestStore, STORE_BACKENDS } from '../support/store-backends.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

describe.each(STORE_BACKENDS)('kept files on %s', (backend) => {
  it('the same file of the same connector within the hour is stored once; otherwise a new row', async () => {
    const { store } = await openTestStore(backend);
    let now = Date.UTC(2026, 10, 26, 9, 0, 0);
    const files = new FileService({ store, links: createFileLinks(randomBytes(32)), publicUrl: () => 'https://gw.example.com', ttlMs: 30 * DAY_MS, now: () => now });
    const pdf = { filename: 'invoice.pdf', contentType: 'application/pdf', content: Buffer.from('%PDF-1.7 the same bytes') };
    const count = async () => Number(((await store.read.sql.get('select count(*) as n from files')) as { n: number }).n);

    const first = await files.put('mail', pdf);
    now += 59 * 60 * 1000;
    const again = await files.put('mail', { ...pdf, content: Buffer.from(pdf.content) });
    expect(again).toEqual(first);
    expect(await count()).toBe(1);

    const renamed = await files.put('mail', { ...pdf, filename: 'copy.pdf' });
    const elsewhere = await files.put('desk', pdf);
    expect(new Set([first.id, renamed.id, elsewhere.id]).size).toBe(3);
    expect(await count()).toBe(3);

    now += 2 * 60 * 1000; // the first copy is now more than an hour old: its link would end too soon
    const later = await files.put('mail', pdf);
    expect(later.id).not.toBe(first.id);
    expect(await count()).toBe(4);
    expect((await store.read.files.get(later.id))!.content.equals(pdf.content)).toBe(true);
  });
});
