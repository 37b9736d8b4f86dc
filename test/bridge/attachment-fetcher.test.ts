/**
 * `ctx.attachments.fetch` (src/bridge/attachment-fetcher.ts) against real HTTP
 * servers on port 0: what is downloaded from where, with which credentials,
 * and how each failure is classified (permanent or transient) so `deliver`
 * can let it propagate. docs/decisions/attachment-fetch.md.
 */
import { createServer, type IncomingHttpHeaders, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { HttpAttachmentFetcher, type AttachmentFetcherDeps } from '../../src/bridge/attachment-fetcher.ts';
import {
  AttachmentFetchError,
  AttachmentHostRefusedError,
  AttachmentTooLargeError,
  AttachmentUnavailableError,
  PermanentDeliveryError,
  TransientDeliveryError,
  type MessageAttachment,
} from '../../src/connector/api.ts';
import { startTestSandbox } from '../sandbox/support.ts';
import { linkedChat } from '../sandbox/webhooks-support.ts';

/** Short enough for a quick suite, long enough for a loaded 2-core machine to answer a healthy request. */
const STALL_TIMEOUT_MS = 300;
const TOKEN = 'Token platform-secret';
const BYTES = Buffer.from([0x25, 0x50, 0x44, 0x46, 0x00, 0xff, 0x10, 0x0a]);

interface Host {
  origin: string;
  /** Headers of every request, in order. */
  seen: IncomingHttpHeaders[];
}

async function startHost(handler: RequestListener): Promise<Host> {
  const seen: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    seen.push(req.headers);
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

function fetcher(platform: Host | string, deps: Partial<AttachmentFetcherDeps> = {}): HttpAttachmentFetcher {
  const f = new HttpAttachmentFetcher({
    platformUrl: typeof platform === 'string' ? platform : platform.origin,
    authorization: () => TOKEN,
    fetchHosts: [],
    maxBytes: 1024,
    ...deps,
  });
  onTestFinished(() => f.close());
  return f;
}

const file = (url: string, name = 'invoice.pdf'): MessageAttachment => ({ type: 'file', url, name });
const image = (url: string): MessageAttachment => ({ type: 'image', url });

describe('attachment fetcher', () => {
  it('downloads a file from the platform host with its name, type and bytes, sending the platform token', async () => {
    const platform = await startHost((req, res) => {
      const type = req.url!.endsWith('/photo') ? 'image/jpeg' : 'application/pdf';
      res.writeHead(200, { 'content-type': type }).end(BYTES);
    });
    const f = fetcher(platform);
    const got = await f.fetch(file(`${platform.origin}/files/abc/x.bin`, 'Rechnung März.pdf'));
    expect(got).toEqual({ filename: 'Rechnung März.pdf', contentType: 'application/pdf', content: BYTES });
    expect(platform.seen[0]!.authorization).toBe(TOKEN);
    // Images: the last path segment when it has an extension, else image.<ext> from the type.
    expect((await f.fetch(image(`${platform.origin}/media/1/holiday%20pic.png`))).filename).toBe('holiday pic.png');
    expect(await f.fetch(image(`${platform.origin}/media/1/photo`))).toMatchObject({ filename: 'image.jpg', contentType: 'image/jpeg' });
  });

  it('downloads what the embedded sandbox serves for an agent message', async () => {
    const sb = await startTestSandbox();
    const { chatId } = await linkedChat(sb, 'http://127.0.0.1:9/unused');
    const posted = await sb.call('POST', `/_sandbox/chats/${chatId}/agent_messages`, {
      text: 'See attached',
      attachments: [{ type: 'file', name: 'notes.txt', content_type: 'text/plain; charset=utf-8', content_base64: BYTES.toString('base64') }],
    });
    const got = await fetcher(sb.url).fetch(posted.body.attachments[0]);
    expect(got).toEqual({ filename: 'notes.txt', contentType: 'text/plain; charset=utf-8', content: BYTES });
  });

  it('refuses a host that is neither the platform nor in files.fetch_hosts, without a request', async () => {
    const platform = await startHost((_req, res) => res.end('x'));
    const other = await startHost((_req, res) => res.end('x'));
    const f = fetcher(platform);
    for (const url of [`${other.origin}/a.pdf`, 'ftp://127.0.0.1/a.pdf', `http://user:pw@${new URL(platform.origin).host}/a.pdf`]) {
      const err = await f.fetch(file(url)).catch((e: unknown) => e);
      expect(err, url).toBeInstanceOf(AttachmentHostRefusedError);
      expect(err).toBeInstanceOf(PermanentDeliveryError);
      expect(err).toMatchObject({ code: 'TG_ATTACHMENT_HOST_REFUSED', permanent: true });
    }
    expect(other.seen).toHaveLength(0);
    expect(platform.seen).toHaveLength(0);
  });

  it('downloads from a host in files.fetch_hosts without the platform token, also after a redirect from the platform', async () => {
    const cdn = await startHost((_req, res) => res.writeHead(200, { 'content-type': 'application/pdf' }).end(BYTES));
    const platform = await startHost((_req, res) => res.writeHead(302, { location: `${cdn.origin}/signed/invoice.pdf?sig=1` }).end());
    const f = fetcher(platform, { fetchHosts: ['127.0.0.1'] });
    expect((await f.fetch(file(`${cdn.origin}/a.pdf`))).content).toEqual(BYTES);
    expect((await f.fetch(file(`${platform.origin}/files/1`))).content).toEqual(BYTES);
    expect(platform.seen[0]!.authorization).toBe(TOKEN);
    expect(cdn.seen.map((h) => h.authorization)).toEqual([undefined, undefined]);
    // Without the CDN in fetch_hosts the redirect is refused.
    await expect(fetcher(platform).fetch(file(`${platform.origin}/files/1`))).rejects.toBeInstanceOf(AttachmentHostRefusedError);
    expect(cdn.seen).toHaveLength(2);
  });

  it('refuses a body over maxBytes by its Content-Length, and a chunked one as it arrives', async () => {
    const platform = await startHost((req, res) => {
      if (req.url === '/declared') return res.writeHead(200, { 'content-length': '2048' }).end(Buffer.alloc(2048));
      res.writeHead(200, { 'content-type': 'application/zip' }); // no length: chunked
      for (let i = 0; i < 8; i += 1) res.write(Buffer.alloc(256));
      // The body goes on after the limit: the fetcher must cut it off, not wait for its end.
      if (req.url !== '/endless') return res.end();
      const more = setInterval(() => res.write(Buffer.alloc(256)), 20);
      res.on('close', () => clearInterval(more));
    });
    const f = fetcher(platform, { maxBytes: 1024 });
    for (const path of ['/declared', '/chunked', '/endless']) {
      const err = await f.fetch(file(`${platform.origin}${path}`)).catch((e: unknown) => e);
      expect(err, path).toBeInstanceOf(AttachmentTooLargeError);
      expect(err).toMatchObject({ code: 'TG_ATTACHMENT_TOO_LARGE', permanent: true, maxBytes: 1024 });
    }
    // A connector's own limit may be lower, never higher than files.max_fetch_bytes.
    await expect(f.fetch(file(`${platform.origin}/declared`), { maxBytes: 10_000 })).rejects.toBeInstanceOf(AttachmentTooLargeError);
    await expect(fetcher(platform, { maxBytes: 4096 }).fetch(file(`${platform.origin}/chunked`), { maxBytes: 1000 })).rejects.toMatchObject({
      maxBytes: 1000,
    });
    expect((await fetcher(platform, { maxBytes: 4096 }).fetch(file(`${platform.origin}/chunked`))).content).toHaveLength(2048);
  });

  it('a 503 is a transient AttachmentFetchError with its Retry-After; a 404 is permanent', async () => {
    const platform = await startHost((req, res) => {
      if (req.url === '/busy') return res.writeHead(503, { 'retry-after': '7' }).end('busy');
      res.writeHead(404).end('gone');
    });
    const f = fetcher(platform);
    const busy = await f.fetch(file(`${platform.origin}/busy`)).catch((e: unknown) => e);
    expect(busy).toBeInstanceOf(AttachmentFetchError);
    expect(busy).toBeInstanceOf(TransientDeliveryError);
    expect(busy).toMatchObject({ code: 'TG_ATTACHMENT_FETCH_FAILED', status: 503, retryAfterMs: 7000 });
    expect((busy as Error).message).not.toContain('/busy'); // the host is named, never the URL
    const gone = await f.fetch(file(`${platform.origin}/gone`)).catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(AttachmentUnavailableError);
    expect(gone).toMatchObject({ code: 'TG_ATTACHMENT_UNAVAILABLE', status: 404, permanent: true });
  });

  it('a body that stalls fails with AttachmentFetchError once the timeout passed', async () => {
    // Guards against a download that hangs a delivery job for ever.
    const platform = await startHost((_req, res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write(Buffer.alloc(10)); // then nothing
    });
    const started = Date.now();
    const err = await fetcher(platform, { timeoutMs: STALL_TIMEOUT_MS }).fetch(file(`${platform.origin}/slow`)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AttachmentFetchError);
    expect((err as Error).message).toContain(`longer than ${STALL_TIMEOUT_MS} ms`);
    expect(Date.now() - started).toBeGreaterThanOrEqual(STALL_TIMEOUT_MS - 20);
  });

  it("the caller's signal aborting throws its reason", async () => {
    const platform = await startHost((_req, res) => res.writeHead(200).write('x'));
    const stop = new AbortController();
    const pending = fetcher(platform).fetch(file(`${platform.origin}/slow`), { signal: stop.signal });
    setTimeout(() => stop.abort(new Error('gateway stopping')), 50);
    await expect(pending).rejects.toThrow('gateway stopping');
  });
});
