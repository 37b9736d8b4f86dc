/**
 * An agent's file on a host the gateway may not fetch from (neither the
 * platform's nor in `files.fetch_hosts`) would be refused at every retry: the
 * e-mail reply and the Redmine note name it and go out with the rest, rather
 * than the whole reply being dead-lettered for it. The fetcher is the real
 * one; the platform a real HTTP server on port 0 serving the other file.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replyFiles } from '../../connectors/email/reply-files.ts';
import { noteFiles } from '../../connectors/ticket/note-files.ts';
import { HttpAttachmentFetcher } from '../../src/bridge/attachment-fetcher.ts';
import { MemoryDesk } from './ticket/memory-desk.ts';

const FORM = Buffer.from('%PDF-1.4 the form');
const REFUSED_LINE = '[attachment not sent: elsewhere.pdf — the gateway may not fetch it from where it is (TG_ATTACHMENT_HOST_REFUSED)]';

let platform: ReturnType<typeof createServer>;
let origin = '';
const requested: string[] = [];

beforeAll(async () => {
  platform = createServer((req, res) => {
    requested.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': FORM.length }).end(FORM);
  });
  await new Promise<void>((resolve) => platform.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(platform.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => platform.close(() => resolve())));

function files(): unknown[] {
  return [
    { type: 'file', url: 'https://files.elsewhere.test/elsewhere.pdf', name: 'elsewhere.pdf', size: 10 },
    { type: 'file', url: `${origin}/files/form.pdf`, name: 'form.pdf', size: FORM.length },
  ];
}

const fetcher = () => new HttpAttachmentFetcher({ platformUrl: origin, authorization: () => 'Bearer platform-token', fetchHosts: [], maxBytes: 1_000_000 });

describe('an agent file on a host the gateway may not fetch from', () => {
  it('is named under the e-mail reply, which goes with the other file', async () => {
    const out = await replyFiles(files(), { keep: true, max_file_bytes: 1_000_000, max_mail_bytes: 5_000_000 }, fetcher());
    expect(out.notSent).toEqual([REFUSED_LINE]);
    expect(out.attachments.map((a) => [a.filename, a.content.equals(FORM)])).toEqual([['form.pdf', true]]);
    expect(requested).toContain('/files/form.pdf');
  });

  it('is named under the Redmine note, which uploads the other file', async () => {
    const out = await noteFiles(files(), {
      private: false,
      limits: { keep: true, max_file_bytes: 1_000_000, max_note_bytes: 5_000_000 },
      fetcher: fetcher(),
      adapter: new MemoryDesk(),
      signal: new AbortController().signal,
    });
    expect(out.notSent).toEqual([REFUSED_LINE]);
    expect(out.uploads.map((u) => u.filename)).toEqual(['form.pdf']);
  });
});
