/**
 * `GET /api-docs/openapi.json`: the OpenAPI 3.1 document of the proxied
 * platform API; `GET /api-docs`: one self-contained page (page.html beside
 * this file, inline CSS and JS, nothing fetched from elsewhere) listing the
 * operations by spec section, each with its request and answer schemas.
 * Always on and without a token: both describe shapes, never data. With
 * the proxy off (no `proxy.clients`, no forwarding of the caller's token)
 * both say so — the paths answer 404 — and how to turn it on. Built once per
 * state, at its first request, with the endpoint lists imported then (a
 * gateway whose proxy is off does not hold every endpoint's schemas
 * otherwise; docs/decisions/footprint.md); the page's Content-Security-Policy
 * allows exactly its own inline script and style (by their SHA-256).
 */
import { readFileSync } from 'node:fs';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { inlinePageHeaders, PACKAGE_VERSION } from '../inline-page.ts';
import { API_DOCS_JSON_PATH, API_DOCS_PATH, buildApiDocs, type ApiDocsOperation, type JsonSchema } from './openapi.ts';

const PAGE_FILE = new URL('./page.html', import.meta.url);

interface Built {
  json: string;
  html: string;
  headers: Record<string, string>;
}

/** One build per proxy state: on, off. */
const built = new Map<boolean, Promise<Built>>();

export const PROXY_OFF_NOTE =
  'The proxy is off on this gateway: these paths answer 404 until the settings give it a key (proxy.clients) or let callers bring their own token (proxy.forward_caller_authorization: true).';

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

const schemaBlock = (label: string, schema: JsonSchema): string =>
  `<details><summary>${escapeHtml(label)}</summary><pre>${escapeHtml(JSON.stringify(schema, null, 2))}</pre></details>`;

function renderOperation(op: ApiDocsOperation): string {
  const search = `${op.method} ${op.path} ${op.id} ${op.summary} ${op.upstream}`.toLowerCase();
  const blocks = [
    ...(op.query ? [schemaBlock('Query parameters', op.query)] : []),
    ...(op.body ? [schemaBlock(`Request body (${op.body.mediaType})`, op.body.schema)] : []),
    ...(op.response ? [schemaBlock(`Response 200 (${op.response.mediaType})`, op.response.schema)] : []),
  ];
  return [
    `<article class="op" id="${escapeHtml(op.id)}" data-search="${escapeHtml(search)}">`,
    `<div class="line"><span class="method ${escapeHtml(op.method)}">${escapeHtml(op.method)}</span> <code class="path">${escapeHtml(op.path)}</code> <span class="meta">${escapeHtml(op.id)} · upstream: ${escapeHtml(op.upstream)}</span></div>`,
    `<p class="summary">${escapeHtml(op.summary)}</p>`,
    ...(blocks.length > 0 ? blocks : ['<p class="meta">No documented request or answer schema.</p>']),
    '</article>',
  ].join('\n');
}

function renderOperations(operations: readonly ApiDocsOperation[]): string {
  const groups = new Map<string, ApiDocsOperation[]>();
  for (const op of operations) {
    const list = groups.get(op.source) ?? [];
    list.push(op);
    groups.set(op.source, list);
  }
  return [...groups]
    .map(([source, ops]) => `<section>\n<h2>${escapeHtml(source)}</h2>\n${ops.map(renderOperation).join('\n')}\n</section>`)
    .join('\n');
}

async function build(proxyOn: boolean): Promise<Built> {
  const { ALL_ENDPOINTS } = await import('../../platform/endpoints/index.ts');
  const { document, operations } = buildApiDocs(ALL_ENDPOINTS, PACKAGE_VERSION);
  const template = readFileSync(PAGE_FILE, 'utf8');
  // The hashes are of the template's own script and style; the rendered list adds neither.
  const headers = inlinePageHeaders(template);
  const html = template
    .replace('<!--VERSION-->', () => escapeHtml(PACKAGE_VERSION))
    .replace('<!--PROXY-STATE-->', () => (proxyOn ? '' : `<p class="notice" role="status">${escapeHtml(PROXY_OFF_NOTE)}</p>`))
    .replace('<!--OPERATIONS-->', () => renderOperations(operations));
  const info = document.info as Record<string, unknown>;
  const described = proxyOn ? document : { ...document, info: { ...info, description: `${String(info.description ?? '')}\n\n${PROXY_OFF_NOTE}`.trim(), 'x-proxy-enabled': false } };
  return { json: JSON.stringify(described), html, headers };
}

/** `proxyOn`: whether this gateway serves the paths (the docs say so when it does not). */
export function registerApiDocs(app: FastifyInstance, proxyOn: boolean): void {
  // Built at the first request, not at the start (~30 ms of every start otherwise).
  const docs = (): Promise<Built> => {
    let d = built.get(proxyOn);
    if (d === undefined) {
      built.set(proxyOn, (d = build(proxyOn)));
      d.catch(() => built.delete(proxyOn)); // tried again at the next request
    }
    return d;
  };
  app.get(API_DOCS_JSON_PATH, async (_request, reply: FastifyReply) =>
    reply.header('content-type', 'application/json; charset=utf-8').send((await docs()).json),
  );
  const page = async (_request: unknown, reply: FastifyReply) => {
    const d = await docs();
    return reply.headers(d.headers).send(d.html);
  };
  app.get(API_DOCS_PATH, page);
  app.get(`${API_DOCS_PATH}/`, page);
}
