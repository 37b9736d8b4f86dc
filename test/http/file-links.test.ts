/**
 * The file store end to end: a connector keeps a file through its context
 * (`ctx.files.put`, the recorder's `POST /connectors/desk/files`) and the link
 * it gets downloads the same bytes from `GET /files/<id>` with headers that
 * keep the file from acting on the gateway's origin. Refusals: a tampered or
 * missing signature and another file's signature are 403 (whether or not the
 * id exists), a genuine link past its expiry 410, a genuine link to a pruned
 * file 404. Two replicas on one PostgreSQL database serve each other's links.
 */
import { createHash } from 'node:crypto';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { createFileLinks, deriveLinkKey, loadLinkKey } from '../../src/bridge/file-links.ts';
import { pruneExpiredFiles } from '../../src/bridge/retention.ts';
import { RECORDER_MODULE, startTestGateway, type TestGateway } from '../support/gateway.ts';

const desk = { name: 'desk', type: 'recorder', module: RECORDER_MODULE };
const DAY_S = 24 * 60 * 60;
/** Bytes a text path would mangle: NULs, a broken UTF-8 sequence, every byte value. */
const BINARY = Buffer.concat([Buffer.from('%PDF-1.7\n\u0000'), Buffer.from([0x00, 0xc3, 0x28, 0xff, 0x00]), Buffer.from(Array.from({ length: 256 }, (_, i) => i))]);

interface Kept {
  id: string;
  url: string;
  size: number;
}

/** Keeps `content` through the recorder connector's context. */
async function put(tg: TestGateway, filename: string, type: string, content: Buffer): Promise<Kept> {
  const query = new URLSearchParams({ filename, type });
  const res = await request(`${tg.gateway.url}/connectors/desk/files?${query}`, { method: 'POST', body: content, headers: { 'content-type': 'application/octet-stream' } });
  expect(res.statusCode).toBe(201);
  return (await res.body.json()) as Kept;
}

async function download(url: string, options: { method?: 'GET' | 'HEAD'; headers?: Record<string, string> } = {}) {
  const res = await request(url, { method: options.method ?? 'GET', headers: options.headers ?? {} });
  const bytes = Buffer.from(await res.body.arrayBuffer());
  return { status: res.statusCode, headers: res.headers, bytes, json: () => JSON.parse(bytes.toString('utf8')) as { code: string; message: string } };
}

/** `url` with its query parameter `name` set to `value` (or removed). */
function withParam(url: string, name: string, value: string | undefined): string {
  const u = new URL(url);
  if (value === undefined) u.searchParams.delete(name);
  else u.searchParams.set(name, value);
  return u.toString();
}

describe('files behind signed links', () => {
  it('downloads the very bytes a connector kept, with headers that make it a download that cannot run', async () => {
    const logLines: string[] = [];
    const tg = await startTestGateway({ connectors: [desk], logLines });
    const name = 'Rechnung März "final" 100%.pdf';
    const kept = await put(tg, name, 'application/pdf', BINARY);
    expect(kept.size).toBe(BINARY.length);
    expect(kept.id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(kept.url).toMatch(new RegExp(`^${tg.gateway.publicUrl}/files/${kept.id}\\?e=\\d+&s=[A-Za-z0-9_-]{43}$`));

    const res = await download(kept.url);
    expect(res.status).toBe(200);
    expect(res.bytes.equals(BINARY)).toBe(true);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="Rechnung M_rz _final_ 100_.pdf"; filename*=UTF-8''Rechnung%20M%C3%A4rz%20%22final%22%20100%25.pdf`);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toBe("default-src 'none'; sandbox");
    expect(res.headers['content-length']).toBe(String(BINARY.length));
    const etag = `"${createHash('sha256').update(BINARY).digest('hex')}"`;
    expect(res.headers.etag).toBe(etag);
    const maxAge = Number(/^private, max-age=(\d+)$/.exec(String(res.headers['cache-control']))![1]);
    expect(maxAge).toBeLessThanOrEqual(30 * DAY_S);
    expect(maxAge).toBeGreaterThan(30 * DAY_S - 60);

    const head = await download(kept.url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.bytes.length).toBe(0);
    expect(head.headers['content-length']).toBe(String(BINARY.length));
    expect(head.headers['content-disposition']).toBe(res.headers['content-disposition']);
    expect((await download(kept.url, { headers: { 'if-none-match': etag } })).status).toBe(304);
    // The signature alone lets anyone download the file: the request log names the link without it.
    const signature = new URL(kept.url).searchParams.get('s')!;
    expect(logLines.some((l) => l.includes(`/files/${kept.id}?e=`) && l.includes('s=[redacted]'))).toBe(true);
    expect(logLines.filter((l) => l.includes(signature))).toEqual([]);
  });

  // Guards against a stored page or script running on the gateway's origin (where the admin page lives) for
  // whoever opens the link: a type a browser would render is never served as itself.
  it('serves HTML, SVG, script and unknown types as opaque downloads; pictures a chat shows may be inline', async () => {
    const tg = await startTestGateway({ connectors: [desk] });
    const html = await download((await put(tg, 'page.html', 'text/html; charset=utf-8', Buffer.from('<script>alert(1)</script>'))).url);
    expect(html.status).toBe(200);
    expect(html.headers['content-type']).toBe('application/octet-stream');
    expect(html.headers['content-disposition']).toMatch(/^attachment; filename="page\.html"/);
    expect(html.headers['content-security-policy']).toBe("default-src 'none'; sandbox");
    expect(html.headers['x-content-type-options']).toBe('nosniff');
    for (const type of ['image/svg+xml', 'application/xhtml+xml', 'text/xml', 'application/javascript', 'application/x-unheard-of', 'not a type']) {
      const res = await download((await put(tg, 'x', type, Buffer.from('<svg onload="alert(1)"/>'))).url);
      expect([type, res.headers['content-type'], String(res.headers['content-disposition']).split(';')[0]]).toEqual([type, 'application/octet-stream', 'attachment']);
    }
    const png = await download((await put(tg, 'logo.png', 'image/png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0]))).url);
    expect([png.headers['content-type'], png.headers['content-disposition']]).toEqual(['image/png', `inline; filename="logo.png"; filename*=UTF-8''logo.png`]);
  });

  it('refuses a tampered, missing or borrowed signature with 403 and never says whether the file exists', async () => {
    const tg = await startTestGateway({ connectors: [desk] });
    const a = await put(tg, 'a.txt', 'text/plain', Buffer.from('a'));
    const b = await put(tg, 'b.txt', 'text/plain', Buffer.from('b'));
    const s = new URL(a.url).searchParams.get('s')!;
    const tampered = withParam(a.url, 's', `${s.slice(0, -1)}${s.endsWith('A') ? 'B' : 'A'}`);
    const borrowed = a.url.replace(`/files/${a.id}`, `/files/${b.id}`); // b's id with a's valid e and s
    const unknown = a.url.replace(`/files/${a.id}`, '/files/AAAAAAAAAAAAAAAAAAAAAA');
    const later = withParam(a.url, 'e', String(Number(new URL(a.url).searchParams.get('e')) + DAY_S));
    for (const url of [tampered, withParam(a.url, 's', undefined), withParam(a.url, 'e', undefined), borrowed, unknown, later, `${a.url}&s=${s}`]) {
      const res = await download(url);
      expect([url, res.status, res.json().code]).toEqual([url, 403, 'TG_FILE_LINK_INVALID']);
      expect(res.bytes.toString()).not.toContain('a.txt');
    }
  });

  it('answers 410 for a genuine link past its expiry and 404 for a genuine link to a pruned file', async () => {
    const tg = await startTestGateway({ connectors: [desk] });
    const kept = await put(tg, 'gone.txt', 'text/plain', Buffer.from('soon gone'));
    // The key the gateway signs with (kept in its store: no store.encryption_key here).
    const links = createFileLinks(await loadLinkKey(tg.gateway.store, undefined));
    const expired = await download(`${tg.gateway.publicUrl}${links.linkFor(kept.id, Date.now() - 1_000)}`);
    expect([expired.status, expired.json().code]).toEqual([410, 'TG_FILE_LINK_EXPIRED']);

    expect(await pruneExpiredFiles(tg.gateway.store, Date.now() + 31 * DAY_S * 1000)).toBe(1);
    const pruned = await download(kept.url);
    expect([pruned.status, pruned.json().code]).toEqual([404, 'TG_FILE_NOT_FOUND']);
  });

  it('signs with a key derived from store.encryption_key, and keeps a file no longer than store.retention_days', async () => {
    const key = 'an encryption key of at least 32 characters';
    const tg = await startTestGateway({ connectors: [desk], storeSettings: { encryption_key: key, retention_days: 7 }, settings: { files: { link_ttl_days: 30 } } });
    const kept = await put(tg, 'k.txt', 'text/plain', Buffer.from('k'));
    const e = Number(new URL(kept.url).searchParams.get('e'));
    expect(e * 1000 - Date.now()).toBeLessThanOrEqual(7 * DAY_S * 1000);
    expect(e * 1000 - Date.now()).toBeGreaterThan(7 * DAY_S * 1000 - 60_000);
    const ours = createFileLinks(deriveLinkKey(key)).linkFor(kept.id, e * 1000);
    expect(kept.url).toBe(`${tg.gateway.publicUrl}${ours}`);
    expect((await download(kept.url)).status).toBe(200);
  });

  // Guards against a key of each replica's own: a link posted by one replica would be refused by the one a load
  // balancer sends the agent to.
  it('a link one replica made downloads from another on the same PostgreSQL database', async () => {
    const a = await startTestGateway({ connectors: [desk], store: 'postgres' });
    const b = await startTestGateway({ connectors: [desk], sandbox: a.sandbox, sameStoreAs: a });
    const kept = await put(a, 'shared.bin', 'application/octet-stream', BINARY);
    const fromB = await download(kept.url.replace(a.gateway.publicUrl, b.gateway.publicUrl));
    expect(fromB.status).toBe(200);
    expect(fromB.bytes.equals(BINARY)).toBe(true);
    const again = await put(b, 'back.bin', 'application/octet-stream', Buffer.from([0, 1, 0]));
    expect((await download(again.url.replace(b.gateway.publicUrl, a.gateway.publicUrl))).bytes).toEqual(Buffer.from([0, 1, 0]));
  });
});
