/**
 * The admin API's one credential: `Authorization: Bearer <server.admin_token>`.
 * Both sides are hashed with SHA-256 first, so `timingSafeEqual` always
 * compares 32 bytes and the time taken tells nothing about the token's
 * length or its first differing character. A refusal is a 401 JSON body with
 * a `WWW-Authenticate` challenge, logged at info without the header.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AdminUnauthorizedError } from '../errors.ts';

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/** True when `header` is `Bearer <token>` (scheme case-insensitive). */
function bearerMatcher(token: string): (header: string | undefined) => boolean {
  const expected = digest(token);
  return (header) => {
    const given = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? '');
    const same = timingSafeEqual(digest(given?.[1] ?? ''), expected);
    return given !== null && same;
  };
}

/** An onRequest hook answering 401 unless the request carries the admin token. */
export function requireAdminToken(token: string) {
  const matches = bearerMatcher(token);
  return async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
    if (matches(request.headers.authorization)) return undefined;
    const err = new AdminUnauthorizedError(
      request.headers.authorization === undefined
        ? 'the admin API needs Authorization: Bearer <server.admin_token>'
        : 'the admin token is not valid',
    );
    request.log.info({ code: err.code, status: 401 }, err.message);
    return reply.status(401).header('www-authenticate', 'Bearer realm="threadgate admin"').send(err.toJSON());
  };
}
