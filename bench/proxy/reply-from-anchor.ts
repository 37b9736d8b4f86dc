/**
 * The anchor of `npm run bench:proxy`: the smallest proxy that does the same
 * admission as threadgate's — a bare Fastify app with `@fastify/reply-from`
 * (its defaults: an undici Pool of 128 connections, pipelining 1), the
 * caller's bearer key hashed with SHA-256 and compared in constant time, a
 * path prefix check (`/api/v5/orgs/<org>/`), the platform token put in place
 * of the key. Bodies pass as streams. No logger. Prints its URL as one line on
 * stdout; SIGTERM closes it and exits.
 *   node bench/proxy/reply-from-anchor.ts <upstream-url>
 */
import replyFrom from '@fastify/reply-from';
import Fastify from 'fastify';
import { createHash, timingSafeEqual } from 'node:crypto';
import { KEY_SHA256, ORG, PLATFORM_TOKEN } from './proxy-bench-constants.ts';

const upstreamUrl = process.argv[2];
if (!upstreamUrl) throw new Error('usage: node bench/proxy/reply-from-anchor.ts <upstream-url>');
const digest = Buffer.from(KEY_SHA256, 'hex');
const prefix = `/api/v5/orgs/${ORG}/`;

const app = Fastify();
await app.register(replyFrom, { base: upstreamUrl });
app.removeAllContentTypeParsers();
app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
app.all('/*', (request, reply) => {
  const key = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
  if (key === undefined || !timingSafeEqual(createHash('sha256').update(key, 'utf8').digest(), digest)) {
    return reply.code(401).send({ code: 'UNAUTHORIZED' });
  }
  if (!request.url.startsWith(prefix)) return reply.code(403).send({ code: 'FORBIDDEN' });
  return reply.from(request.url, {
    rewriteRequestHeaders: (_req, headers) => ({ ...headers, authorization: `Token ${PLATFORM_TOKEN}` }),
  });
});
const url = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`${url}\n`);
process.on('SIGTERM', () => {
  void app.close().finally(() => process.exit(0));
});
