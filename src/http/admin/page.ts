/**
 * `GET /admin`: one self-contained page (page.html beside this file: inline
 * CSS and vanilla JS, nothing fetched from elsewhere) that asks for the admin
 * token and works through the admin API. The file is read once, at start.
 * The Content-Security-Policy allows exactly the page's own inline script
 * and style (by their SHA-256) and requests to this origin only.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FastifyInstance, FastifyReply } from 'fastify';

const PAGE_FILE = new URL('./page.html', import.meta.url);

const hashesOf = (html: string, tag: 'script' | 'style'): string[] =>
  [...html.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, 'g'))].map(
    (m) => `'sha256-${createHash('sha256').update(m[1] as string, 'utf8').digest('base64')}'`,
  );

export function registerAdminPage(app: FastifyInstance): void {
  const html = readFileSync(PAGE_FILE, 'utf8');
  const csp = [
    "default-src 'none'",
    `script-src ${hashesOf(html, 'script').join(' ')}`,
    `style-src ${hashesOf(html, 'style').join(' ')}`,
    "connect-src 'self'",
    "img-src 'self' data:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  const headers = {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': csp,
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
  };
  const page = async (_request: unknown, reply: FastifyReply) => reply.headers(headers).send(html);
  app.get('/admin', page);
  app.get('/admin/', page);
}
