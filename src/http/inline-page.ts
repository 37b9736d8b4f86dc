/**
 * What the gateway's self-contained pages (`/admin`, `/api-docs`) share: the
 * security headers of a page whose only script and style are inline in its
 * template — a Content-Security-Policy allowing exactly those (by their
 * SHA-256) and nothing else unless named — and the version they show.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** The package's version, read once. */
export const PACKAGE_VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

const hashesOf = (html: string, tag: 'script' | 'style'): string[] =>
  [...html.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, 'g'))].map(
    (m) => `'sha256-${createHash('sha256').update(m[1] as string, 'utf8').digest('base64')}'`,
  );

/**
 * Headers for a page built from `template`: its inline `<script>` and
 * `<style>` allowed by hash, `extraSources` (e.g. `connect-src 'self'`) added,
 * no framing, no sniffing, no referrer.
 */
export function inlinePageHeaders(template: string, extraSources: readonly string[] = []): Record<string, string> {
  const csp = [
    "default-src 'none'",
    `script-src ${hashesOf(template, 'script').join(' ')}`,
    `style-src ${hashesOf(template, 'style').join(' ')}`,
    ...extraSources,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  return {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': csp,
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
  };
}
