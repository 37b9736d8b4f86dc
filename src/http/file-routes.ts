/**
 * `GET /files/:id?e=<expires>&s=<signature>` (and HEAD, which Fastify derives
 * from it): a stored file for whoever holds its signed link — no token, the
 * signature is the authorisation. 403 `TG_FILE_LINK_INVALID` for a missing or
 * wrong signature (also for an unknown id: nothing says whether it exists),
 * 410 `TG_FILE_LINK_EXPIRED` for a genuine link past its expiry, 404
 * `TG_FILE_NOT_FOUND` for a genuine link whose file was pruned
 * (src/bridge/files.ts decides). The answer can never act on the gateway's
 * origin: a served type chosen by ./file-headers.ts, `nosniff`, a CSP that
 * sandboxes and allows nothing, no referrer. Cached privately until the
 * link expires; the ETag is the content's SHA-256 (If-None-Match → 304).
 */
import type { FastifyInstance } from 'fastify';
import { FILES_PATH } from '../bridge/file-links.ts';
import type { FileService } from '../bridge/files.ts';
import { contentDisposition, servedContentType } from './file-headers.ts';

const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'; sandbox",
  'referrer-policy': 'no-referrer',
} as const;

/** Whether an If-None-Match header names `etag` (a list, weak forms, or `*`). */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t === etag || t === `W/${etag}`;
  });
}

export function registerFileRoutes(app: FastifyInstance, files: FileService, now: () => number = Date.now): void {
  app.get(`${FILES_PATH}/:id`, async (request, reply) => {
    const { id } = request.params as { id: string };
    const { e, s } = (request.query ?? {}) as Record<string, unknown>;
    const at = now();
    const meta = await files.open(id, e, s, at);
    const etag = `"${meta.sha256}"`;
    void reply.headers({
      ...SECURITY_HEADERS,
      'cache-control': `private, max-age=${Math.max(0, Math.floor((meta.expiresAt - at) / 1000))}`,
      etag,
    });
    if (matches(request.headers['if-none-match'], etag)) return reply.status(304).send();
    const file = await files.content(id);
    const type = servedContentType(file.contentType);
    return reply
      .status(200)
      .headers({ 'content-type': type, 'content-disposition': contentDisposition(file.filename, type), 'content-length': String(file.size) })
      .send(file.content);
  });
}
