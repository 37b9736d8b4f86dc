/**
 * `deliveryErrorFor` and `judgeHttpAnswer` (threadgate/connector): what an
 * HTTP answer of the external system means for a delivery, from real answers
 * of a real HTTP server on port 0, read through fetch and through undici.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliveryErrorFor, judgeHttpAnswer, PermanentDeliveryError, RetryLaterError, TransientDeliveryError } from '../../../src/connector/api.ts';

let server: Server;
let base: string;

beforeAll(async () => {
  // /<status>[?retry=<Retry-After>] answers that status, with that header, and a body naming it.
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const retry = url.searchParams.get('retry');
    res.writeHead(Number(url.pathname.slice(1)), { 'content-type': 'text/plain', ...(retry === null ? {} : { 'retry-after': retry }) });
    res.end(`status   ${url.pathname.slice(1)}\n  said here`);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((done) => server.close(() => done())));

async function viaFetch(path: string) {
  const res = await fetch(`${base}${path}`, { redirect: 'manual' });
  return deliveryErrorFor(res, { what: 'chatline at 127.0.0.1', text: await res.text() });
}

describe('deliveryErrorFor', () => {
  it('is nothing for a 2xx', async () => {
    expect(await viaFetch('/200')).toBeUndefined();
    expect(await viaFetch('/204')).toBeUndefined();
  });

  it('names the wait of a 429 or 503 with Retry-After, in seconds or as a date', async () => {
    const seconds = await viaFetch('/429?retry=7');
    expect(seconds).toBeInstanceOf(RetryLaterError);
    expect((seconds as RetryLaterError).retryAfterMs).toBe(7_000);
    expect(seconds?.message).toBe('chatline at 127.0.0.1 answered 429: status 429 said here (retry after 7000 ms)');
    const date = await viaFetch(`/503?retry=${encodeURIComponent(new Date(Date.now() + 60_000).toUTCString())}`);
    expect(date).toBeInstanceOf(RetryLaterError);
    expect((date as RetryLaterError).retryAfterMs).toBeGreaterThan(55_000);
  });

  it('retries with backoff: 5xx, 408, 409, 425, a 429 or 503 without Retry-After, a redirect not followed', async () => {
    for (const path of ['/500', '/502', '/408', '/409', '/425', '/429', '/503', '/302']) {
      const err = await viaFetch(path);
      expect(err, path).toBeInstanceOf(TransientDeliveryError);
      expect(err, path).not.toBeInstanceOf(PermanentDeliveryError);
      expect(err?.code, path).toBe('TG_DELIVERY_TRANSIENT');
    }
    expect((await viaFetch('/302'))?.message).toMatch(/answered 302: .* \(redirect not followed\)$/);
  });

  it('dead-letters any other 4xx', async () => {
    for (const path of ['/400', '/401', '/403', '/404', '/410', '/422']) {
      const err = await viaFetch(path);
      expect(err, path).toBeInstanceOf(PermanentDeliveryError);
      expect((err as PermanentDeliveryError).permanent, path).toBe(true);
    }
  });

  it("reads undici's answers (headers as a record) the same", async () => {
    const res = await request(`${base}/503?retry=2`);
    const err = deliveryErrorFor({ status: res.statusCode, headers: res.headers }, { text: await res.body.text() });
    expect(err).toBeInstanceOf(RetryLaterError);
    expect(err?.message).toBe('the external system answered 503: status 503 said here (retry after 2000 ms)');
  });

  it('keeps a short excerpt of a long answer', async () => {
    const err = deliveryErrorFor({ status: 400 }, { text: 'x'.repeat(1_000) });
    expect(err?.message).toBe(`the external system answered 400: ${'x'.repeat(200)}…`);
  });
});

describe('judgeHttpAnswer', () => {
  it('gives the verdict the table names', () => {
    expect(judgeHttpAnswer(201)).toEqual({ kind: 'ok' });
    expect(judgeHttpAnswer(429, '3')).toEqual({ kind: 'retry-after', retryAfterMs: 3_000 });
    expect(judgeHttpAnswer(429, 'soon')).toEqual({ kind: 'retry', redirect: false });
    expect(judgeHttpAnswer(301)).toEqual({ kind: 'retry', redirect: true });
    expect(judgeHttpAnswer(404)).toEqual({ kind: 'permanent' });
  });
});
