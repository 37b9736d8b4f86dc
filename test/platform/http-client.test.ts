/**
 * The platform transport against a real scripted HTTP server: headers, JSON,
 * retry of 429/5xx/network failures and nothing else, Retry-After, timeouts,
 * and the error each failure becomes.
 */
import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import {
  PlatformClientOptionsError,
  PlatformHttpError,
  PlatformNetworkError,
  PlatformTimeoutError,
  isRetryable,
} from '../../src/platform/errors.ts';
import { PlatformHttpClient } from '../../src/platform/http-client.ts';
import type { PlatformHttpOptions } from '../../src/platform/http-request.ts';
import { failure } from '../support/failure.ts';
import { closedPort } from '../support/ports.ts';
import { until } from '../support/wait.ts';
import { capturingLogger, TOKEN } from './fixtures.ts';
import { startScriptedPlatform, type Script, type ScriptedPlatform } from './scripted-platform.ts';

/** Backoff short enough that three attempts take milliseconds. */
const FAST_RETRY = { attempts: 3, baseMs: 1, maxMs: 20 };
/** A timeout the scripted delays below clearly exceed. */
const SHORT_TIMEOUT_MS = 150;
const SLOWER_THAN_TIMEOUT_MS = 2_000;
/** Retry-After resolution is whole seconds; allow the timer a little slack. */
const ONE_SECOND_MINUS_SLACK_MS = 950;

let platform: ScriptedPlatform | undefined;
let client: PlatformHttpClient | undefined;

afterEach(async () => {
  await client?.close();
  await platform?.close();
  client = undefined;
  platform = undefined;
});

async function setup(script: Script[], options: Partial<PlatformHttpOptions> = {}) {
  platform = await startScriptedPlatform(script);
  client = new PlatformHttpClient({ baseUrl: platform.origin, token: TOKEN, retry: FAST_RETRY, ...options });
  return { platform, client };
}

function expectNoToken(err: unknown) {
  expect(String((err as Error).message)).not.toContain(TOKEN);
  expect(JSON.stringify(err)).not.toContain(TOKEN);
}

describe('requests', () => {
  it.each(['Token', 'Bearer'] as const)('sends Authorization: %s <token>, Accept and a JSON body', async (tokenType) => {
    const { platform, client } = await setup([{ status: 201, body: { ok: true } }], { tokenType });
    const res = await client.request({ method: 'POST', path: '/api/v5/x', body: { a: 1, b: 'é' } });
    expect(res).toMatchObject({ status: 201, body: { ok: true }, attempts: 1 });
    const [req] = platform.requests;
    expect(req?.method).toBe('POST');
    expect(req?.headers.authorization).toBe(`${tokenType} ${TOKEN}`);
    expect(req?.headers.accept).toBe('application/json');
    expect(req?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(req?.body ?? '')).toEqual({ a: 1, b: 'é' });
  });

  it('keeps a path prefix of the base URL and appends the query', async () => {
    const { platform } = await setup([{ status: 200, body: {} }]);
    client = new PlatformHttpClient({ baseUrl: `${platform.origin}/prefix/`, token: TOKEN });
    await client.request({ method: 'GET', path: '/api/v5/y', query: { a: 'b c', skip: undefined, n: 2 } });
    expect(platform.requests[0]?.url).toBe('/prefix/api/v5/y?a=b+c&n=2');
    expect(platform.requests[0]?.headers['content-type']).toBeUndefined();
  });

  it('logs one debug line per attempt without the token or a body', async () => {
    const log = capturingLogger();
    await setup([{ status: 503, body: { detail: 'busy' } }, { status: 200, body: { secret_answer: 42 } }], {
      logger: log.logger,
    });
    await client!.request({ method: 'POST', path: '/api/v5/z', body: { sensitive: 'payload' } });
    const lines = log.lines();
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ level: 20, method: 'POST', path: '/api/v5/z', status: 503, attempt: 1 });
    expect(lines[1]).toMatchObject({ level: 20, method: 'POST', path: '/api/v5/z', status: 200, attempt: 2 });
    expect(typeof lines[1]?.durationMs).toBe('number');
    const all = log.raw.join('');
    expect(all).not.toContain(TOKEN);
    expect(all).not.toContain('payload');
    expect(all).not.toContain('secret_answer');
  });

  it('refuses options that cannot work, without echoing the token', () => {
    const bad = () => new PlatformHttpClient({ baseUrl: 'ftp://host', token: 'has space' });
    expect(bad).toThrow(PlatformClientOptionsError);
    expect(bad).toThrow(/baseUrl/);
    expect(bad).not.toThrow(/has space/);
  });
});

describe('errors that are not retried', () => {
  // Guards against retrying a 400: the platform would refuse the same payload again.
  it('400 becomes PlatformHttpError TG_PLATFORM_REJECTED after one request', async () => {
    const { platform, client } = await setup([{ status: 400, body: { detail: 'Invalid payload.' } }]);
    const err = await failure(client.request({ method: 'POST', path: '/api/v5/m', body: {} }));
    expect(err).toBeInstanceOf(PlatformHttpError);
    expect(err).toMatchObject({ code: 'TG_PLATFORM_REJECTED', status: 400, detail: 'Invalid payload.', attempts: 1 });
    expect((err as Error).message).toBe('POST /api/v5/m → 400: Invalid payload.');
    expect(isRetryable(err)).toBe(false);
    expect(platform.requests).toHaveLength(1);
    expectNoToken(err);
  });

  it('a redirect is not followed', async () => {
    const { platform, client } = await setup([
      { status: 302, headers: { location: 'http://127.0.0.1:1/elsewhere' } },
      { status: 200, body: {} },
    ]);
    const err = await failure(client.request({ method: 'GET', path: '/api/v5/r' }));
    expect(err).toMatchObject({ code: 'TG_PLATFORM_REJECTED', status: 302 });
    expect((err as PlatformHttpError).detail).toContain('not followed');
    expect(platform.requests).toHaveLength(1);
  });
});

describe('retry', () => {
  it('503, 503, 200 succeeds on the third request', async () => {
    const { platform, client } = await setup([
      { status: 503, body: { detail: 'busy' } },
      { status: 503, body: { detail: 'busy' } },
      { status: 201, body: { id: 1 } },
    ]);
    const res = await client.request({ method: 'POST', path: '/api/v5/m', body: { n: 1 } });
    expect(res).toMatchObject({ status: 201, body: { id: 1 }, attempts: 3 });
    expect(platform.requests).toHaveLength(3);
    expect(platform.requests.map((r) => r.body)).toEqual(['{"n":1}', '{"n":1}', '{"n":1}']);
  });

  it('500 forever ends in TG_PLATFORM_UNAVAILABLE after `attempts` requests with the last detail', async () => {
    const { platform, client } = await setup([
      (_req, i) => ({ status: 500, body: { detail: `failure ${i + 1}` } }),
    ]);
    const err = await failure(client.request({ method: 'GET', path: '/api/v5/f' }));
    expect(err).toBeInstanceOf(PlatformHttpError);
    expect(err).toMatchObject({ code: 'TG_PLATFORM_UNAVAILABLE', status: 500, detail: 'failure 3', attempts: 3 });
    expect((err as Error).message).toBe('GET /api/v5/f → 500: failure 3 after 3 attempts');
    expect(isRetryable(err)).toBe(true);
    expect(platform.requests).toHaveLength(3);
  });

  it('429 with Retry-After: 1 waits about a second, then succeeds', async () => {
    const { platform, client } = await setup(
      [{ status: 429, headers: { 'retry-after': '1' }, body: { detail: 'slow down' } }, { status: 200, body: {} }],
      { retry: { attempts: 3, baseMs: 1, maxMs: 10_000 } },
    );
    const started = performance.now();
    await client.request({ method: 'POST', path: '/api/v5/m', body: {} });
    expect(performance.now() - started).toBeGreaterThanOrEqual(ONE_SECOND_MINUS_SLACK_MS);
    expect(platform.requests).toHaveLength(2);
  });

  it.each([
    ['delta-seconds', () => '30'],
    ['an HTTP-date', () => new Date(Date.now() + 30_000).toUTCString()],
  ])('Retry-After as %s is capped by maxMs', async (_kind, retryAfter) => {
    const { platform, client } = await setup(
      [() => ({ status: 429, headers: { 'retry-after': retryAfter() } }), { status: 200, body: {} }],
      { retry: { attempts: 2, baseMs: 1, maxMs: 100 } },
    );
    const started = performance.now();
    await client.request({ method: 'GET', path: '/api/v5/c' });
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(90);
    expect(elapsed).toBeLessThan(2_000);
    expect(platform.requests).toHaveLength(2);
  });

  // The job queue calls with attempts: 1 and schedules its own retry from retryAfterMs.
  it('a per-call attempts: 1 makes one request and surfaces retryAfterMs', async () => {
    const { platform, client } = await setup([{ status: 429, headers: { 'retry-after': '7' }, body: { detail: 'wait' } }]);
    const err = await failure(client.request({ method: 'POST', path: '/api/v5/m', body: {}, retry: { attempts: 1 } }));
    expect(err).toMatchObject({ code: 'TG_PLATFORM_UNAVAILABLE', status: 429, retryAfterMs: 7_000, attempts: 1 });
    expect(isRetryable(err)).toBe(true);
    expect(platform.requests).toHaveLength(1);
  });

  it('connection refused becomes PlatformNetworkError after every attempt', async () => {
    const log = capturingLogger();
    const port = await closedPort();
    client = new PlatformHttpClient({ baseUrl: `http://127.0.0.1:${port}`, token: TOKEN, retry: FAST_RETRY, logger: log.logger });
    const err = await failure(client.request({ method: 'POST', path: '/api/v5/m', body: {} }));
    expect(err).toBeInstanceOf(PlatformNetworkError);
    expect(err).toMatchObject({ code: 'TG_PLATFORM_UNREACHABLE', causeCode: 'ECONNREFUSED', attempts: 3, transient: true });
    expect((err as Error).message).toMatch(/^POST \/api\/v5\/m → no response \(ECONNREFUSED/);
    expect(isRetryable(err)).toBe(true);
    expect(log.lines().map((l) => l.attempt)).toEqual([1, 2, 3]);
    expectNoToken(err);
  });
});

describe('a POST is not repeated when the platform may have acted on it', () => {
  it('a 500 or a stalled answer to a POST is thrown after one request; the same to a PUT is retried', async () => {
    const { platform, client } = await setup([{ status: 500, body: { detail: 'oops' } }]);
    const post = await failure(client.request({ method: 'POST', path: '/api/v5/m', body: { n: 1 } }));
    expect(post).toMatchObject({ status: 500, attempts: 1 });
    expect(platform.requests).toHaveLength(1);
    await failure(client.request({ method: 'PUT', path: '/api/v5/m', body: { n: 1 } }));
    expect(platform.requests).toHaveLength(4);
  });

  it('a POST timing out is not retried', async () => {
    const { platform, client } = await setup([{ status: 201, body: {}, delayMs: SLOWER_THAN_TIMEOUT_MS }], { timeoutMs: SHORT_TIMEOUT_MS });
    const err = await failure(client.request({ method: 'POST', path: '/api/v5/m', body: {} }));
    expect(err).toBeInstanceOf(PlatformTimeoutError);
    expect(platform.requests).toHaveLength(1);
  });

  it('a POST marked idempotent is retried on a 500 like any other request', async () => {
    const { platform, client } = await setup([{ status: 500, body: { detail: 'oops' } }, { status: 201, body: { id: 2 } }]);
    const res = await client.request({ method: 'POST', path: '/api/v5/m', body: {}, idempotent: true });
    expect(res).toMatchObject({ status: 201, attempts: 2 });
    expect(platform.requests).toHaveLength(2);
  });
});

describe('caller headers', () => {
  it('are sent lower-cased; the caller cannot replace Authorization or the body headers', async () => {
    const { platform, client } = await setup([{ status: 200, body: {} }]);
    await client.request({
      method: 'POST',
      path: '/api/v5/m',
      body: { a: 1 },
      headers: { 'X-Private-Key': 'k', Authorization: 'Token stolen', 'Content-Length': '1' },
    });
    const [req] = platform.requests;
    expect(req?.headers['x-private-key']).toBe('k');
    expect(req?.headers.authorization).toBe(`Token ${TOKEN}`);
    expect(JSON.parse(req?.body ?? '')).toEqual({ a: 1 });
  });
});

describe('timeouts', () => {
  it('a server slower than timeoutMs becomes PlatformTimeoutError, each attempt timed alone', async () => {
    const { platform, client } = await setup([{ status: 200, body: {}, delayMs: SLOWER_THAN_TIMEOUT_MS }], {
      timeoutMs: SHORT_TIMEOUT_MS,
      retry: { attempts: 2, baseMs: 1, maxMs: 10 },
    });
    const started = performance.now();
    const err = await failure(client.request({ method: 'GET', path: '/api/v5/slow' }));
    const elapsed = performance.now() - started;
    expect(err).toBeInstanceOf(PlatformTimeoutError);
    expect(err).toMatchObject({ code: 'TG_PLATFORM_TIMEOUT', timeoutMs: SHORT_TIMEOUT_MS, attempts: 2 });
    expect(elapsed).toBeGreaterThanOrEqual(2 * SHORT_TIMEOUT_MS - 10);
    expect(elapsed).toBeLessThan(SLOWER_THAN_TIMEOUT_MS);
    expect(platform.requests).toHaveLength(2);
    expect(isRetryable(err)).toBe(true);
  });

  it('a body that stops after the headers times out too', async () => {
    const { client } = await setup([{ status: 200, body: '{"partial":', stallBody: true }], {
      timeoutMs: SHORT_TIMEOUT_MS,
      retry: { attempts: 1 },
    });
    const err = await failure(client.request({ method: 'GET', path: '/api/v5/stall' }));
    expect(err).toBeInstanceOf(PlatformTimeoutError);
  });

  it("the caller's signal ends a request in flight with its reason; finished attempts leave no listener on it", async () => {
    const ok = { status: 200, body: { ok: true } };
    const { platform, client } = await setup([ok, ok, ok, { status: 200, body: {}, delayMs: SLOWER_THAN_TIMEOUT_MS }], { retry: { attempts: 1 } });
    const caller = new AbortController();
    for (let i = 0; i < 3; i++) expect((await client.request({ method: 'GET', path: '/api/v5/x', signal: caller.signal })).status).toBe(200);
    // A long-lived signal (a job's, the runner's) must not collect one listener per request.
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
    const started = performance.now();
    const pending = failure(client.request({ method: 'POST', path: '/api/v5/slow', body: {}, signal: caller.signal }));
    await until(async () => platform.requests.length === 4, 2_000, 'the slow request sent');
    const reason = new Error('the runner stops');
    caller.abort(reason);
    expect(await pending).toBe(reason);
    expect(performance.now() - started).toBeLessThan(SLOWER_THAN_TIMEOUT_MS);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
  });

  it('a per-call timeoutMs overrides the client default', async () => {
    const { client } = await setup([{ status: 200, body: {}, delayMs: SLOWER_THAN_TIMEOUT_MS }], {
      timeoutMs: 60_000,
      retry: { attempts: 1 },
    });
    const started = performance.now();
    const err = await failure(client.request({ method: 'GET', path: '/api/v5/slow', timeoutMs: SHORT_TIMEOUT_MS }));
    expect(err).toMatchObject({ code: 'TG_PLATFORM_TIMEOUT', timeoutMs: SHORT_TIMEOUT_MS });
    expect(performance.now() - started).toBeLessThan(SLOWER_THAN_TIMEOUT_MS);
  });
});
