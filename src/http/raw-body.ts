/**
 * Raw bodies for routes that verify signatures: inside the Fastify scope this
 * installs, every content type arrives as the exact bytes received (a Buffer,
 * empty when there was none), up to the body limit.
 */
import type { FastifyInstance } from 'fastify';

export function acceptRawBodies(scope: FastifyInstance, bodyLimit: number): void {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit }, (_request, body, done) => done(null, body));
}

export function rawBodyOf(body: unknown): Buffer {
  return Buffer.isBuffer(body) ? body : Buffer.alloc(0);
}
