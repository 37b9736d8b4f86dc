/**
 * `GET /admin`: one self-contained page (page.html beside this file: inline
 * CSS and vanilla JS, nothing fetched from elsewhere) that asks for the admin
 * token and works through the admin API. The file is read once, at start.
 * The Content-Security-Policy allows exactly the page's own inline script
 * and style (by their SHA-256) and requests to this origin only.
 */
import { readFileSync } from 'node:fs';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { inlinePageHeaders } from '../inline-page.ts';

const PAGE_FILE = new URL('./page.html', import.meta.url);

export function registerAdminPage(app: FastifyInstance): void {
  const html = readFileSync(PAGE_FILE, 'utf8');
  const headers = { ...inlinePageHeaders(html, ["connect-src 'self'", "img-src 'self' data:"]), 'cache-control': 'no-store' };
  const page = async (_request: unknown, reply: FastifyReply) => reply.headers(headers).send(html);
  app.get('/admin', page);
  app.get('/admin/', page);
}
