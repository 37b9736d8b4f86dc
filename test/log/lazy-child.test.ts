/**
 * The lazy child logger of every job run and request: nothing is made or
 * written for a call below the level; a call at the level writes the line
 * with the bindings, redacted by the root like any child's; the level is the
 * parent's at the time of the call; a child with a level of its own is one
 * at once. Through the gateway's app, a request's line carries its reqId at
 * the level that writes it, and the same request writes nothing below it.
 */
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { Settings } from '../../src/config/schema.ts';
import { buildApp } from '../../src/http/app.ts';
import { lazyChild } from '../../src/log/lazy-child.ts';
import { createLogger } from '../../src/log/logger.ts';
import { openStore } from '../../src/store/database.ts';
import { capture } from '../support/log-capture.ts';
import { tempDir } from '../support/temp-dir.ts';

/** A root logger into a capture. */
function root(level: 'warn' | 'debug' = 'warn') {
  const { lines, stream } = capture();
  const logger = createLogger(level, stream);
  const parsed = () => lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  return { logger, parsed };
}

/** Bindings that count how often they are read: pino reads them once, when it makes the child. */
function counted(fields: Record<string, unknown>) {
  let reads = 0;
  const bindings = {};
  for (const [key, value] of Object.entries(fields)) {
    Object.defineProperty(bindings, key, {
      enumerable: true,
      get: () => {
        reads += 1;
        return value;
      },
    });
  }
  return { bindings, made: () => reads > 0 };
}

describe('lazyChild', () => {
  it('makes no child and writes nothing for calls below the level', () => {
    const { logger, parsed } = root('warn');
    const { bindings, made } = counted({ job_id: 7 });
    const log = lazyChild(logger, bindings);
    log.debug({ duration_ms: 3 }, 'job done');
    log.info('not written');
    expect(made()).toBe(false);
    expect(parsed()).toEqual([]);
  });

  it('writes a call at the level with its bindings, redacted as any child’s', () => {
    const { logger, parsed } = root('warn');
    const { bindings, made } = counted({ job_id: 7, token: 'sekrit' });
    const log = lazyChild(logger, bindings);
    log.warn({ attempt: 2 }, 'renewing the job lease failed');
    log.error('and again');
    expect(made()).toBe(true);
    const [first, second] = parsed();
    expect(first).toMatchObject({ level: 40, job_id: 7, token: '[redacted]', attempt: 2, msg: 'renewing the job lease failed' });
    expect(second).toMatchObject({ level: 50, job_id: 7, msg: 'and again' });
  });

  it('follows the parent’s level at the time of the call', () => {
    const { logger, parsed } = root('warn');
    const log = lazyChild(logger, { kind: 'x' });
    log.info('dropped');
    logger.level = 'info';
    log.info('written');
    expect(parsed().map((l) => l.msg)).toEqual(['written']);
  });

  it('answers everything else from the child it makes, and a level of its own makes it at once', () => {
    const { logger, parsed } = root('warn');
    const log = lazyChild(logger, { room: 'x' });
    expect(log.isLevelEnabled('warn')).toBe(true);
    expect(log.bindings()).toMatchObject({ room: 'x' });
    const grandchild = log.child({ job_id: 1 });
    grandchild.warn('deep');
    expect(parsed()[0]).toMatchObject({ room: 'x', job_id: 1, msg: 'deep' });
    const { bindings, made } = counted({ room: 'y' });
    const own = lazyChild(logger, bindings, { level: 'debug' });
    expect(made()).toBe(true);
    own.debug('its own level');
    expect(parsed()[1]).toMatchObject({ room: 'y', level: 20, msg: 'its own level' });
  });
});

describe('the app’s request loggers', () => {
  it('write a request’s lines with its reqId, and nothing below the level', async () => {
    const { logger, parsed } = root('warn');
    const store = openStore({ path: join(tempDir(), 'app.db') });
    onTestFinished(() => store.close());
    const app = buildApp({ settings: Settings.parse({}), store, logger });
    onTestFinished(() => app.close());
    const quiet = await app.inject({ method: 'GET', url: '/healthz' });
    expect(quiet.statusCode).toBe(200);
    expect(parsed()).toEqual([]); // Fastify's "incoming request" and "request completed" are info
    logger.level = 'info';
    await app.inject({ method: 'GET', url: '/healthz' });
    const lines = parsed();
    expect(lines.map((l) => l.msg)).toEqual(['incoming request', 'request completed']);
    expect(lines[0]?.reqId).toBeDefined();
    expect(lines[1]?.reqId).toBe(lines[0]?.reqId);
    expect(lines[0]).toMatchObject({ room: 'http' });
  });
});
