import { describe, expect, it } from 'vitest';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import { installErrorHandlers, RequestInvalidError } from '../../src/http/errors.ts';
import { createLogger } from '../../src/log/logger.ts';
import { capture } from '../support/log-capture.ts';

describe('root logger', () => {
  it('redacts tokens, secrets and signature headers at any depth it knows', () => {
    const { lines, stream } = capture();
    const log = createLogger('info', stream).child({ room: 'test' });
    log.info(
      {
        req: { headers: { authorization: 'Token plat-123', 'x-svc-signature': 'sha256=abc', 'x-private-key': 'KEY' } },
        platform: { token: 'plat-456', url: 'https://p.example.test' },
        registration: { webhook_secret_key: 'deadbeef' },
        connector: { imap: { password: 'hunter2' } },
      },
      'hello',
    );
    const out = lines.join('');
    for (const secret of ['plat-123', 'sha256=abc', 'KEY', 'plat-456', 'deadbeef', 'hunter2']) {
      expect(out).not.toContain(secret);
    }
    expect(out).toContain('https://p.example.test');
    expect(out).toContain('[redacted]');
  });
});

describe('query credentials in log lines', () => {
  // Guards against a credential in a URL leaking through an error's message or stack, or a message string.
  it('redacts credential-like query values in messages, error messages and stacks', () => {
    const { lines, stream } = capture();
    const log = createLogger('info', stream).child({ room: 'test' });
    const err = new Error('POST https://hooks.example.test/in?id=7&api_key=k-123&sig=s%2F456 failed: 503');
    log.error({ err, target: 'https://hooks.example.test/in?Token=t-789' }, 'delivery to https://hooks.example.test/in?password=p-"quoted"x failed');
    const out = lines.join('');
    for (const secret of ['k-123', 's%2F456', 't-789', 'p-', 'quoted']) expect(out).not.toContain(secret);
    expect(out).toContain('/in?id=7&api_key=[redacted]&sig=[redacted] failed: 503');
    expect(out).toContain('?Token=[redacted]');
    expect(JSON.parse(out).err.stack).toContain('api_key=[redacted]');
  });

  // Guards against a value cut at a quote or angle bracket, leaving the rest of the secret in the line.
  it("redacts a value through ', < and >", () => {
    const { lines, stream } = capture();
    createLogger('info', stream).info({ url: "/x?token=abc'tail-1&key=q<tail-2>e&a=1" }, 'request');
    const out = lines.join('');
    expect(out).not.toMatch(/tail-1|tail-2/);
    expect(out).toContain('?token=[redacted]&key=[redacted]&a=1');
  });
});

describe('HTTP error boundary', () => {
  async function app() {
    const { stream } = capture();
    const f = Fastify({ loggerInstance: createLogger('info', stream) as FastifyBaseLogger, bodyLimit: 64 });
    installErrorHandlers(f);
    f.post('/echo', async (req) => req.body);
    f.get('/invalid', async () => {
      throw new RequestInvalidError([{ path: 'messages[0].body', message: 'may not be blank' }]);
    });
    f.get('/boom', async () => {
      throw new Error('database password is hunter2');
    });
    return f;
  }

  it('answers a validation error with 400 naming the field', async () => {
    const f = await app();
    const r = await f.inject({ method: 'GET', url: '/invalid' });
    expect(r.statusCode).toBe(400);
    expect(r.json()).toEqual({
      code: 'TG_REQUEST_INVALID',
      message: 'messages[0].body: may not be blank',
      errors: [{ path: 'messages[0].body', message: 'may not be blank' }],
    });
  });

  it('answers malformed JSON with 400 and an oversized body with 413, both JSON', async () => {
    const f = await app();
    const bad = await f.inject({ method: 'POST', url: '/echo', headers: { 'content-type': 'application/json' }, payload: '{"a":' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().code).toBe('TG_REQUEST_INVALID');
    const big = await f.inject({
      method: 'POST',
      url: '/echo',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ a: 'x'.repeat(100) }),
    });
    expect(big.statusCode).toBe(413);
    expect(big.json().code).toBe('TG_BODY_TOO_LARGE');
  });

  it('never shows an internal error message or stack to the client', async () => {
    const f = await app();
    const r = await f.inject({ method: 'GET', url: '/boom' });
    expect(r.statusCode).toBe(500);
    expect(r.json()).toEqual({ code: 'TG_INTERNAL', message: 'internal error' });
  });

  it('answers unknown routes with a JSON 404', async () => {
    const f = await app();
    const r = await f.inject({ method: 'GET', url: '/nope?x=1' });
    expect(r.statusCode).toBe(404);
    expect(r.json()).toEqual({ code: 'TG_NOT_FOUND', message: 'no route GET /nope' });
  });
});
