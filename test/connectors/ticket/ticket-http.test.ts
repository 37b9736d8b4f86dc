/**
 * The seam's HTTP client against real servers on port 0: what a request
 * sends (raw bytes with their type, a multipart form with a header of its
 * own), and what a download follows — redirects only when asked, never with
 * the credentials past the first request, never a web page for a file.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { TicketAttachmentUnavailableError, TicketSystemError } from '../../../connectors/ticket/ticket-adapter.ts';
import { TicketHttp } from '../../../connectors/ticket/ticket-http.ts';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((done) => s.close(done))));
});

async function serve(handle: (seen: Seen) => { status: number; headers?: Record<string, string>; body?: string | Buffer }): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const request = { method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks) };
    seen.push(request);
    const answer = handle(request);
    res.writeHead(answer.status, answer.headers ?? {}).end(answer.body ?? '');
  });
  servers.push(server);
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const http = (url: string) => new TicketHttp({ system: 'Desk', url: `${url}/desk`, headers: { authorization: 'Bearer desk-secret' }, credential: 'the desk key', timeoutMs: 5_000 });
const signal = () => AbortSignal.timeout(10_000);

describe('TicketHttp', () => {
  it('sends raw bytes with their own type, and a form with a header of its own, both with the credentials', async () => {
    const desk = await serve(() => ({ status: 201, headers: { 'content-type': 'application/json' }, body: '{"ok":true}' }));
    const client = http(desk.url);
    await client.send('POST', '/uploads', { query: { filename: 'a.png' }, raw: Buffer.from([1, 2, 3]), contentType: 'image/png' }, signal());
    const form = new FormData();
    form.append('file', new Blob([Buffer.from('hello')], { type: 'text/plain' }), 'hello.txt');
    const answer = await client.send('POST', '/files', { form, headers: { 'x-atlassian-token': 'no-check' } }, signal());
    expect(answer.json).toEqual({ ok: true });
    const [raw, multipart] = desk.seen;
    expect([raw!.url, raw!.headers['content-type'], raw!.headers.authorization, [...raw!.body]]).toEqual(['/desk/uploads?filename=a.png', 'image/png', 'Bearer desk-secret', [1, 2, 3]]);
    expect([multipart!.headers['x-atlassian-token'], multipart!.headers.authorization]).toEqual(['no-check', 'Bearer desk-secret']);
    expect(multipart!.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(multipart!.body.toString()).toContain('filename="hello.txt"');
  });

  it('follows a download’s redirects only when asked, and without the credentials past the first request', async () => {
    const files = await serve(() => ({ status: 200, headers: { 'content-type': 'application/pdf' }, body: '%PDF-1.4 the file' }));
    const desk = await serve(() => ({ status: 302, headers: { location: `${files.url}/signed/abc` } }));
    const client = http(desk.url);
    const refused = await client.download(`${desk.url}/desk/attachments/1`, 1_000, signal()).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(TicketSystemError);
    expect((refused as TicketSystemError).status).toBe(302);
    expect(files.seen).toHaveLength(0);

    const bytes = await client.download(`${desk.url}/desk/attachments/1`, 1_000, signal(), { redirects: 3, contentType: 'application/pdf' });
    expect(bytes.toString()).toBe('%PDF-1.4 the file');
    expect(desk.seen.at(-1)!.headers.authorization).toBe('Bearer desk-secret');
    expect([files.seen[0]!.url, files.seen[0]!.headers.authorization]).toEqual(['/signed/abc', undefined]);
  });

  it('refuses a URL outside the root unless asked, then sends no credentials there', async () => {
    const elsewhere = await serve(() => ({ status: 200, body: 'bytes' }));
    const desk = await serve(() => ({ status: 200 }));
    const client = http(desk.url);
    await expect(client.download(`${elsewhere.url}/file`, 100, signal())).rejects.toThrow('refusing to send the desk key');
    expect(elsewhere.seen).toHaveLength(0);
    expect((await client.download(`${elsewhere.url}/file`, 100, signal(), { anonymousElsewhere: true })).toString()).toBe('bytes');
    expect(elsewhere.seen[0]!.headers.authorization).toBeUndefined();
  });

  it('calls too many redirects, a refused hop and a web page for a file unavailable', async () => {
    const loop = await serve((seen) => ({ status: 302, headers: { location: `${seen.url}x` } }));
    const client = http(loop.url);
    const tooMany = await client.download(`${loop.url}/desk/a`, 100, signal(), { redirects: 2, what: 'the download of a.pdf' }).catch((err: unknown) => err);
    expect(tooMany).toBeInstanceOf(TicketAttachmentUnavailableError);
    expect((tooMany as Error).message).toBe(`Desk at ${new URL(loop.url).host}: the download of a.pdf was redirected more than 2 times`);
    expect(loop.seen).toHaveLength(3);

    const signIn = await client.download(`${loop.url}/desk/a`, 100, signal(), { redirects: 2, refuseHop: (url, hop) => (hop > 0 ? `goes to ${url.pathname}` : undefined) }).catch((err: unknown) => err);
    expect([signIn instanceof TicketAttachmentUnavailableError, (signIn as Error).message.endsWith('the file goes to /desk/ax')]).toEqual([true, true]);

    const page = await serve(() => ({ status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, body: '<html>Sign in</html>' }));
    const web = await http(page.url).download(`${page.url}/desk/f`, 1_000, signal(), { contentType: 'application/pdf' }).catch((err: unknown) => err);
    expect([web instanceof TicketAttachmentUnavailableError, (web as Error).message]).toEqual([true, `Desk at ${new URL(page.url).host}: the file was answered with a web page instead of the file (a sign-in?)`]);
    expect((await http(page.url).download(`${page.url}/desk/f`, 1_000, signal(), { contentType: 'text/html' })).toString()).toBe('<html>Sign in</html>');
  });
});
