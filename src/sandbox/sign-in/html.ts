/** Small helpers of the sign-in HTML pages: escaping and the security headers every page is sent with. */
import type { FastifyReply } from 'fastify';

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Text for a `<script>` block: JSON that cannot close the element or start a comment. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');
}

/** Sends an HTML page that loads nothing from elsewhere; `scriptNonce` allows its one inline script. */
export function sendPage(reply: FastifyReply, status: number, html: string, scriptNonce?: string): FastifyReply {
  const script = scriptNonce === undefined ? '' : `; script-src 'nonce-${scriptNonce}'`;
  return reply
    .status(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    .header('content-security-policy', `default-src 'none'; style-src 'unsafe-inline'${script}`)
    .send(html);
}

export function page(title: string, body: string, script?: { nonce: string; code: string }): string {
  const scriptTag = script === undefined ? '' : `<script nonce="${script.nonce}">${script.code}</script>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>body{font:16px system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem}button{display:block;width:100%;margin:.4rem 0;padding:.6rem;font:inherit;text-align:left;cursor:pointer}.org{color:#666;font-size:.85em}</style>
</head><body>${body}${scriptTag}</body></html>`;
}
