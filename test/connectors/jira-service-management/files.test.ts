/**
 * Files of Jira Service Management requests through the adapter, against
 * the counterpart of a Jira Cloud site: the references Jira appends to a
 * comment for its files are cut from its text; a comment of files alone is
 * files without text; a file an agent adds later without a comment (whose
 * visibility Jira does not tell) is never public; a file Jira refuses
 * (over its attachment size) is refused with Jira's words; a file gone is
 * unavailable; temporary files need Jira's XSRF header, which the adapter
 * sends.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { JsmConnectorConfig } from '../../../connectors/jira-service-management/config.ts';
import { JsmAdapter } from '../../../connectors/jira-service-management/jsm-adapter.ts';
import { startJsm, type JsmCounterpart } from '../../support/jira-service-management/jsm-counterpart.ts';

const signal = new AbortController().signal;
let jsm: JsmCounterpart;
let adapter: JsmAdapter;
afterEach(() => jsm.close());

async function site() {
  jsm = await startJsm();
  adapter = new JsmAdapter(JsmConnectorConfig.parse({ url: jsm.url, email: jsm.gateway.email, api_token: jsm.gateway.apiToken, service_desk: 'HELP' }));
}
const file = (filename: string, contentType: string, bytes = 1_500) => ({ filename, contentType, content: Buffer.alloc(bytes, 0x41) });

describe('the Jira Service Management adapter, files', () => {
  it('cuts the file references Jira appends from a comment’s text; a comment of files alone has none', async () => {
    await site();
    const { id } = await jsm.openRequest(jsm.customer, { summary: 'Screens', description: 'x' });
    await jsm.comment(jsm.customer, id, 'Two screenshots [^notes.txt] stay as written.', { files: [file('shot.png', 'image/png'), file('log [1].txt', 'text/plain')] });
    await jsm.comment(jsm.customer, id, '', { files: [file('only.pdf', 'application/pdf')] });
    const stored = jsm.store.issue(id)!.comments.map((c) => c.body);
    expect(stored[0]).toBe('Two screenshots [^notes.txt] stay as written. !shot.png|thumbnail! [^log [1].txt] _(1 kB)_');
    const [withText, filesOnly] = (await adapter.readTicket(id, signal)).entries;
    expect([withText!.text, withText!.attachments.map((a) => a.filename)]).toEqual(['Two screenshots [^notes.txt] stay as written.', ['shot.png', 'log [1].txt']]);
    expect([filesOnly!.text, filesOnly!.private, filesOnly!.attachments.map((a) => a.filename)]).toEqual(['', false, ['only.pdf']]);
  });

  it('a file an agent adds later without a comment is a private entry, not part of the opening', async () => {
    await site();
    const { id } = await jsm.openRequest(jsm.customer, { summary: 'Later file', description: 'x', files: [file('first.pdf', 'application/pdf')] });
    const issue = jsm.store.issue(id)!;
    const temp = jsm.store.addTemp(jsm.agent.accountId, 'internal.xlsx', 'application/vnd.ms-excel', Buffer.from('secret'));
    jsm.store.attach(issue, jsm.agent.accountId, [temp], false, undefined);
    const ticket = await adapter.readTicket(id, signal);
    expect(ticket.attachments.map((a) => a.filename)).toEqual(['first.pdf']);
    expect(ticket.entries.map((e) => [e.private, e.text, e.attachments.map((a) => a.filename)])).toEqual([[true, '', ['internal.xlsx']]]);
  });

  it('a file over Jira’s attachment size is refused with Jira’s words; a file gone is unavailable', async () => {
    await site();
    jsm.store.maxFileBytes = 1_000;
    const refused = await adapter.uploadAttachment(file('big.bin', 'application/octet-stream', 1_001), signal).catch((err: unknown) => err as { code?: string; answer?: string });
    expect(refused).toMatchObject({ code: 'TG_TICKET_ATTACHMENT_REFUSED', answer: expect.stringContaining('too large') });
    const gone = { id: '99999', filename: 'gone.pdf', size: 10, contentType: 'application/pdf', url: `${jsm.url}/rest/api/3/attachment/content/99999?redirect=false` };
    const unavailable = await adapter.downloadAttachment(gone, 1_000, signal).catch((err: unknown) => err as { code?: string; status?: number });
    expect(unavailable).toMatchObject({ code: 'TG_TICKET_ATTACHMENT_UNAVAILABLE', status: 404 });
  });

  it('a temporary file without the XSRF header is refused by Jira; the adapter’s upload carries it', async () => {
    await site();
    const form = new FormData();
    form.append('file', new Blob([Buffer.from('x')]), 'x.txt');
    const auth = `Basic ${Buffer.from(`${jsm.gateway.email}:${jsm.gateway.apiToken}`).toString('base64')}`;
    const bare = await fetch(`${jsm.url}/rest/servicedeskapi/servicedesk/1/attachTemporaryFile`, { method: 'POST', headers: { authorization: auth }, body: form });
    expect([bare.status, await bare.text()]).toEqual([403, 'XSRF check failed']);
    const upload = await adapter.uploadAttachment(file('ok.txt', 'text/plain'), signal);
    expect(jsm.store.temp.get(upload.token)?.filename).toBe('ok.txt');
  });
});
