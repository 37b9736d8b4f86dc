/**
 * The upstream of `npm run bench:proxy`, in its own process so that its work
 * does not share the gateway's event loop: a bare Fastify app answering every
 * GET with a ~1 KB JSON page (a unified-messaging list). Prints its URL as one
 * line on stdout and runs until killed.
 *   node bench/json-upstream.ts
 */
import Fastify from 'fastify';

const page = JSON.stringify({
  next: null,
  previous: null,
  results: Array.from({ length: 4 }, (_, i) => ({ id: `${i}`, name: 'x'.repeat(200) })),
});

const upstream = Fastify();
upstream.get('/*', async (_req, reply) => reply.header('content-type', 'application/json').send(page));
const url = await upstream.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`${url}\n`);
process.on('SIGTERM', () => {
  void upstream.close().then(() => process.exit(0));
});
