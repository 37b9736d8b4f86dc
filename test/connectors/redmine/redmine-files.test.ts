/**
 * The Redmine adapter's files, against the run's real Redmine: which message
 * each file of an issue belongs to (the opening, or the journal that added
 * it), downloads with the API key (capped, a deleted file unavailable, the
 * key never sent outside the configured url — also when Redmine behind a
 * proxy names its own address), uploads attached to a note in one journal,
 * and Redmine's refusal of a file over its attachment_max_size (5 MB by
 * default) as a `TicketAttachmentRefusedError` with its words.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { RedmineConnectorConfig } from '../../../connectors/redmine/config.ts';
import { RedmineAdapter } from '../../../connectors/redmine/redmine-adapter.ts';
import { RedmineHttp } from '../../../connectors/redmine/redmine-http.ts';
import { TicketAttachmentRefusedError, TicketAttachmentTooLargeError, TicketAttachmentUnavailableError, TicketSystemError } from '../../../connectors/ticket/ticket-adapter.ts';
import { redmine, type TestRedmine } from '../../support/redmine.ts';
import { startTicketSystemProxy } from '../../support/ticket-system-proxy.ts';

let rm: TestRedmine;
beforeAll(async () => {
  rm = await redmine();
}, 120_000);

const signal = new AbortController().signal;
const adapterAt = (url: string, project: string) => new RedmineAdapter(RedmineConnectorConfig.parse({ url, api_key: rm.seed.gateway_key, project }));
const pdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(20_000), Buffer.from([0, 0, 255])]);
const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(3_000)]);

async function rejection<T extends Error>(promise: Promise<unknown>, type: new (...args: any[]) => T): Promise<T> {
  const err = await promise.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(type);
  return err as T;
}

/** An HTTP server on another origin that records what reaches it. */
async function foreignOrigin(): Promise<{ url: string; requests: { url: string; key: string | undefined }[] }> {
  const requests: { url: string; key: string | undefined }[] = [];
  const server = createServer((req, res) => {
    requests.push({ url: req.url ?? '', key: req.headers['x-redmine-api-key'] as string | undefined });
    res.writeHead(200, { 'content-type': 'application/octet-stream' }).end('not the file');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

/** An issue opened with the PDF and the PNG, then a note of a file only, a note with text and a file, and a private note with a file. */
async function issueWithFiles(project: string): Promise<number> {
  const id = await rm.createIssue(project, { subject: 'Broken part', description: 'See the files.', uploads: [await rm.upload('invoice.pdf', pdf, 'application/pdf'), await rm.upload('photo.png', png, 'image/png')] });
  await rm.addNote(id, '', { uploads: [await rm.upload('error.log', Buffer.from('line 1\nline 2\n'), 'text/plain')] });
  await rm.addNote(id, 'And the label.', { uploads: [await rm.upload('label.png', png, 'image/png')] });
  await rm.addNote(id, 'Internal.', { private: true, uploads: [await rm.upload('internal.pdf', pdf, 'application/pdf', rm.seed.admin_key)] });
  return id;
}

describe('Redmine adapter, files', () => {
  it('files uploaded with the issue belong to the opening; each journal’s to its entry, a private note’s (split off by Redmine) to the private entry', async () => {
    const project = await rm.newProject();
    const adapter = adapterAt(rm.url, project);
    await adapter.connect(signal);
    const id = await issueWithFiles(project);
    const ticket = await adapter.readTicket(String(id), signal);
    const described = (files: { filename: string; size: number; contentType: string }[]) => files.map((f) => [f.filename, f.size, f.contentType]);
    expect(described(ticket.attachments)).toEqual([['invoice.pdf', pdf.length, 'application/pdf'], ['photo.png', png.length, 'image/png']]);
    expect(ticket.entries.map((e) => ({ text: e.text, private: e.private, files: described(e.attachments) }))).toEqual([
      { text: '', private: false, files: [['error.log', 14, 'text/plain']] },
      { text: 'And the label.', private: false, files: [['label.png', png.length, 'image/png']] },
      // Redmine splits a private note with files: a public journal with the files, then the private one with the text.
      { text: '', private: false, files: [] },
      { text: 'Internal.', private: true, files: [['internal.pdf', pdf.length, 'application/pdf']] },
    ]);
    expect(ticket.attachments[0]!.url).toMatch(new RegExp(`^${rm.url}/attachments/download/\\d+/invoice\\.pdf$`));
  });

  it('downloads the bytes with the API key, refuses past the cap, and names a deleted file unavailable', async () => {
    const project = await rm.newProject();
    const adapter = adapterAt(rm.url, project);
    const id = await issueWithFiles(project);
    const [invoice, photo] = (await adapter.readTicket(String(id), signal)).attachments;
    expect((await adapter.downloadAttachment(invoice!, 1_000_000, signal)).equals(pdf)).toBe(true);
    expect((await adapter.downloadAttachment(photo!, png.length, signal)).equals(png)).toBe(true);
    await rejection(adapter.downloadAttachment(invoice!, 1_000, signal), TicketAttachmentTooLargeError);

    expect((await rm.api('DELETE', `/attachments/${invoice!.id}.json`)).status).toBe(204);
    const gone = await rejection(adapter.downloadAttachment(invoice!, 1_000_000, signal), TicketAttachmentUnavailableError);
    expect(gone.status).toBe(404);
    expect(gone.code).toBe('TG_TICKET_ATTACHMENT_UNAVAILABLE');
  });

  it('behind a proxy naming Redmine’s own address, files are read through the configured url; a URL outside it never gets the key', async () => {
    const project = await rm.newProject();
    const proxy = await startTicketSystemProxy(rm.url);
    const seen: string[] = [];
    proxy.onAnswer = (method, url) => void seen.push(`${method} ${url}`);
    const adapter = adapterAt(proxy.url, project);
    const id = await issueWithFiles(project);
    const [invoice] = (await adapter.readTicket(String(id), signal)).attachments;
    expect(invoice!.url.startsWith(`${rm.url}/`)).toBe(true); // Redmine names the address it was asked on, not the proxy's
    expect((await adapter.downloadAttachment(invoice!, 1_000_000, signal)).equals(pdf)).toBe(true);
    expect(seen).toContain(`GET /attachments/download/${invoice!.id}`);

    const foreign = await foreignOrigin();
    const elsewhere = { ...invoice!, url: `${foreign.url}/attachments/download/${invoice!.id}/invoice.pdf` };
    expect((await adapterAt(rm.url, project).downloadAttachment(elsewhere, 1_000_000, signal)).equals(pdf)).toBe(true);
    const http = new RedmineHttp(rm.url, rm.seed.gateway_key, 5_000);
    const refused = await rejection(http.download(elsewhere.url, 1_000_000, signal), TicketSystemError);
    expect(refused.message).toContain('outside');
    expect(foreign.requests).toEqual([]);
  });

  it('a note with two uploads is one journal naming both files; Redmine refuses a file over its 5 MB limit with its words (422)', async () => {
    const project = await rm.newProject();
    const adapter = adapterAt(rm.url, project);
    await adapter.connect(signal);
    const id = await rm.createIssue(project, { subject: 'Need the form' });
    const uploads = [
      await adapter.uploadAttachment({ filename: 'form.pdf', contentType: 'application/pdf', content: pdf }, signal),
      await adapter.uploadAttachment({ filename: 'photo.png', contentType: 'image/png', content: png }, signal),
    ];
    await adapter.addNote(String(id), { text: 'Here it is.', private: false, uploads }, signal);
    const journals = (await rm.journals(id)).filter((j) => j.user.id === rm.seed.gateway_id);
    expect(journals).toHaveLength(1);
    expect(journals[0]!.notes).toBe('Here it is.');
    expect(journals[0]!.details.filter((d) => d.property === 'attachment').map((d) => d.new_value)).toEqual(['form.pdf', 'photo.png']);
    const files = await rm.attachments(id);
    expect(files.map((f) => [f.filename, f.content_type, f.author.id])).toEqual([['form.pdf', 'application/pdf', rm.seed.gateway_id], ['photo.png', 'image/png', rm.seed.gateway_id]]);
    expect((await rm.download(files[0]!.content_url)).equals(pdf)).toBe(true);
    expect((await rm.download(files[1]!.content_url)).equals(png)).toBe(true);

    const big = randomBytes(5 * 1024 * 1024 + 1);
    const refused = await rejection(adapter.uploadAttachment({ filename: 'big.bin', contentType: 'application/octet-stream', content: big }, signal), TicketAttachmentRefusedError);
    expect(refused.status).toBe(422);
    expect(refused.code).toBe('TG_TICKET_ATTACHMENT_REFUSED');
    expect(refused.answer).toContain('exceeds the maximum allowed file size');
  });
});
