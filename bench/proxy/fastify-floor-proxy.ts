/**
 * A floor of `npm run bench:proxy`: the least a proxy served by the gateway's
 * Fastify app can do — Fastify built with the gateway's options and logger
 * (`log.level: warn`, as bench/proxy/proxy-gateway.ts runs it), one route under
 * `/api/*` that takes the reply over (`hijack`) and hands the request to an
 * undici Pool (bench/proxy/floor-forward.ts), with no checks at all. What
 * threadgate's proxy could reach at best without leaving Fastify. Prints its
 * URL as one line on stdout; SIGTERM closes it and exits.
 *   node bench/proxy/fastify-floor-proxy.ts <upstream-url>
 */
import Fastify, { type FastifyBaseLogger } from 'fastify';
import { Pool } from 'undici';
import { createLogger } from '../../src/log/logger.ts';
import { forwardBare } from './floor-forward.ts';

const upstreamUrl = process.argv[2];
if (!upstreamUrl) throw new Error('usage: node bench/proxy/fastify-floor-proxy.ts <upstream-url>');
const pool = new Pool(upstreamUrl, { connections: 64 });
const app = Fastify({
  loggerInstance: createLogger('warn').child({ room: 'http' }) as FastifyBaseLogger,
  return503OnClosing: true,
  forceCloseConnections: 'idle',
});
app.removeAllContentTypeParsers();
app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
app.route({
  method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
  url: '/api/*',
  handler: (request, reply) => {
    reply.hijack();
    forwardBare(pool, request.raw, reply.raw);
  },
});
const url = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`${url}\n`);
process.on('SIGTERM', () => {
  void app.close().then(() => pool.close()).finally(() => process.exit(0));
});
