/**
 * An agent's files reach the Redmine issue, end to end against the run's real
 * Redmine and the sandbox: a reply with a file and an image is one note whose
 * journal names both, and Redmine hands back the very bytes; a file over
 * `max_file_bytes` and one Redmine refuses (over its own 5 MB
 * attachment_max_size) are named under the note's text, the note going all
 * the same; a retry that finds its note uploads nothing again; a private note
 * gets no files (Redmine would show them to everyone).
 */
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { redmine, type TestRedmine } from '../../support/redmine.ts';
import { until } from '../../support/wait.ts';
import { startTicketSystemProxy } from '../../support/ticket-system-proxy.ts';
import { ARRIVES_MS, CONNECTOR, chatOfIssue, helpDesk } from './support.ts';

let rm: TestRedmine;
beforeAll(async () => {
  rm = await redmine();
}, 120_000);

const MIB = 1024 * 1024;
const form = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(30_000), Buffer.from([0, 1, 2])]);
const photo = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(5_000)]);
const file = (name: string, contentType: string, bytes: Buffer) => ({ type: 'file', name, content_type: contentType, content_base64: bytes.toString('base64') });
const image = (bytes: Buffer) => ({ type: 'image', content_type: 'image/png', content_base64: bytes.toString('base64') });
const ownNotes = async (issueId: number) => (await rm.journals(issueId)).filter((j) => j.user.id === rm.seed.gateway_id);

describe('Redmine connector, an agent’s files', () => {
  it('go with the reply as one note naming both files, bytes identical; over our limit or refused by Redmine: named under the text', { timeout: 90_000 }, async () => {
    const { tg, project } = await helpDesk(rm, { extra: { attachments: { max_file_bytes: 6 * MIB } } });
    const issue = await rm.createIssue(project, { subject: 'Need the form', description: 'Please.' });
    const thread = await chatOfIssue(tg, rm, issue);
    const posted = await tg.sandbox.call('POST', `/_sandbox/chats/${thread.chatId}/agent_messages`, {
      text: 'Here it is.',
      attachments: [
        file('form.pdf', 'application/pdf', form),
        image(photo),
        file('refused.bin', 'application/octet-stream', randomBytes(5 * MIB + 512 * 1024)),
        file('huge.bin', 'application/octet-stream', randomBytes(6 * MIB + 1)),
      ],
    });
    expect(posted.status).toBe(201);
    await until(async () => (await tg.gateway.store.read.deliveries.countByStatus(CONNECTOR)).delivered === 1, ARRIVES_MS * 2, 'the reply delivered');

    const notes = await ownNotes(issue);
    expect(notes).toHaveLength(1);
    const lines = notes[0]!.notes!.split('\n');
    expect(lines[0]).toMatch(/^\*\*.+\*\* \(via chat, ref [0-9a-f]{12}\):$/);
    expect(lines.slice(1)).toEqual([
      '',
      'Here it is.',
      '',
      '[attachment not sent: refused.bin — Redmine refused it: This file cannot be uploaded because it exceeds the maximum allowed file size (5242880)]',
      '[attachment not sent: huge.bin — over the 6.0 MB limit per file]',
    ]);
    const named = notes[0]!.details.filter((d) => d.property === 'attachment');
    expect(named).toHaveLength(2);
    const files = await rm.attachments(issue);
    expect(files.map((f) => String(f.id)).sort()).toEqual(named.map((d) => d.name).sort());
    expect(files.map((f) => f.content_type)).toEqual(['application/pdf', 'image/png']);
    expect(files[0]!.filename).toBe('form.pdf');
    expect(files[1]!.filename).toMatch(/\.png$/);
    expect((await rm.download(files[0]!.content_url)).equals(form)).toBe(true);
    expect((await rm.download(files[1]!.content_url)).equals(photo)).toBe(true);
  });

  it('a retry that finds its note (Redmine stored it, the answer was lost) uploads nothing again', { timeout: 60_000 }, async () => {
    const proxy = await startTicketSystemProxy(rm.url);
    const uploads: string[] = [];
    proxy.onAnswer = (method, url) => void (method === 'POST' && url.startsWith('/uploads.json') && uploads.push(url));
    const { tg, project } = await helpDesk(rm, { url: proxy.url });
    const issue = await rm.createIssue(project, { subject: 'Lost answer', description: 'x' });
    const thread = await chatOfIssue(tg, rm, issue);
    proxy.dropPutAnswers = 1;
    await tg.sandbox.call('POST', `/_sandbox/chats/${thread.chatId}/agent_messages`, { text: 'Once, with its file.', attachments: [file('form.pdf', 'application/pdf', form)] });
    await until(async () => (await tg.gateway.store.read.deliveries.countByStatus(CONNECTOR)).delivered === 1, 30_000, 'the delivery, after a retry');
    expect(proxy.dropPutAnswers).toBe(0);
    expect(uploads).toEqual(['/uploads.json?filename=form.pdf']);
    expect(await ownNotes(issue)).toHaveLength(1);
    expect((await rm.attachments(issue)).map((f) => f.filename)).toEqual(['form.pdf']);
  });

  it('with notes: private the files are not uploaded, only named: Redmine would show a note’s files to everyone', async () => {
    const { tg, project } = await helpDesk(rm, { extra: { notes: 'private' } });
    const issue = await rm.createIssue(project, { subject: 'Internal', description: 'x' });
    const thread = await chatOfIssue(tg, rm, issue);
    await tg.sandbox.call('POST', `/_sandbox/chats/${thread.chatId}/agent_messages`, { text: 'For staff.', attachments: [file('form.pdf', 'application/pdf', form)] });
    await until(async () => (await ownNotes(issue)).length === 1, ARRIVES_MS, 'the private note');
    const [note] = await ownNotes(issue);
    expect(note!.private_notes).toBe(true);
    expect(note!.notes).toMatch(/\n\nFor staff\.\n\n\[attachment not sent: form\.pdf — a private note's files would be public in Redmine\]$/);
    expect(await rm.attachments(issue)).toEqual([]);
  });
});
