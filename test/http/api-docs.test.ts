/**
 * The OpenAPI document of the proxied surface and its page, as a real gateway
 * serves them without any token: one operation per documented endpoint,
 * every `{param}` declared, every `$ref` resolving; the page lists every
 * path. Also: schemas JSON Schema cannot express (transforms, refinements,
 * recursion, a schema whose conversion throws) do not break the build.
 */
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { buildApiDocs } from '../../src/http/api-docs/openapi.ts';
import { ALL_ENDPOINTS } from '../../src/platform/endpoints/index.ts';
import type { EndpointSpec } from '../../src/platform/endpoints/types.ts';
import { startTestGateway } from '../support/gateway.ts';

type Json = Record<string, unknown>;
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** Every `$ref` in the value, with where it was found. */
function refsOf(value: unknown, at = '#'): { ref: string; at: string }[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => refsOf(v, `${at}/${i}`));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([k, v]) => (k === '$ref' && typeof v === 'string' ? [{ ref: v, at }] : refsOf(v, `${at}/${k}`)));
}

/** Follows a local JSON pointer from the document root. */
function resolve(doc: unknown, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  let node: unknown = doc;
  for (const raw of ref.slice(1).split('/').filter(Boolean)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object' || !(key in node)) return undefined;
    node = (node as Json)[key];
  }
  return node;
}

function checkDocument(doc: Json): { operations: number } {
  expect(doc.openapi).toBe('3.1.0');
  let operations = 0;
  for (const [path, item] of Object.entries(doc.paths as Record<string, Json>)) {
    expect(path).not.toMatch(/[<>]/);
    const placeholders = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
    for (const [method, op] of Object.entries(item)) {
      if (!METHODS.includes(method)) continue;
      operations++;
      const params = ((op as Json).parameters ?? []) as Json[];
      const declared = params.filter((p) => p.in === 'path').map((p) => p.name);
      expect(declared.sort(), `${method} ${path}`).toEqual([...placeholders].sort());
      for (const p of params.filter((p) => p.in === 'path')) expect(p.required).toBe(true);
    }
  }
  for (const { ref, at } of refsOf(doc)) expect(resolve(doc, ref), `${ref} at ${at}`).toBeDefined();
  return { operations };
}

describe('api docs', () => {
  it('serves the OpenAPI 3.1 document of every documented endpoint and a page listing them, without a token', async () => {
    const tg = await startTestGateway({ connectors: [] });

    const res = await tg.call('GET', '/api-docs/openapi.json');
    expect(res.status).toBe(200);
    expect(String(res.headers['content-type'])).toMatch(/^application\/json/);
    const doc = JSON.parse(res.text) as Json;
    const { operations } = checkDocument(doc);
    expect(operations).toBe(ALL_ENDPOINTS.length);

    const paths = doc.paths as Record<string, Record<string, Json>>;
    for (const e of ALL_ENDPOINTS) {
      const path = e.path.replace(/<([^<>/]+)>/g, '{$1}');
      const op = paths[path]?.[e.method.toLowerCase()];
      expect(op, `${e.method} ${path}`).toBeDefined();
      expect(op!.operationId).toBe(e.id);
      expect(op!['x-upstream']).toBe(e.upstream);
      expect(op!.summary).toBe(e.summary);
      const content = (op!.requestBody as { content?: Json } | undefined)?.content ?? {};
      if (e.multipart) expect(Object.keys(content)).toEqual(['multipart/form-data']);
      else if (e.body) expect(Object.keys(content)).toEqual(['application/json']);
      else expect(op!.requestBody).toBeUndefined();
      const responses = op!.responses as Record<string, { description?: string; content?: Json }>;
      // The gateway's own answers: every path is checked (400 TG_PATH_INVALID), a checked body may be too large.
      expect(responses['400']?.description, e.id).toContain('TG_PATH_INVALID');
      expect(Object.keys(responses)).toEqual(expect.arrayContaining(['401', '403', '429', '502', '503', '504']));
      expect(responses['413'] !== undefined, `${e.id} 413`).toBe(e.body !== undefined && !e.multipart);
      const ok = responses['200']!;
      if (e.download) expect(Object.keys(ok.content ?? {})).toEqual(['application/octet-stream']);
      else if (e.response) expect(Object.keys(ok.content ?? {})).toEqual(['application/json']);
      if (e.query) {
        const queryNames = ((op!.parameters ?? []) as Json[]).filter((p) => p.in === 'query').map((p) => p.name);
        const shape = (e.query as unknown as { shape?: Record<string, unknown> }).shape;
        if (shape) for (const name of Object.keys(shape)) expect(queryNames, `${e.id} query ${name}`).toContain(name);
      }
    }
    const schemes = (doc.components as Json).securitySchemes as Record<string, Json>;
    expect(schemes.gatewayKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.security).toEqual([{ gatewayKey: [] }]);

    const page = await tg.call('GET', '/api-docs');
    expect(page.status).toBe(200);
    expect(String(page.headers['content-type'])).toMatch(/^text\/html/);
    expect(String(page.headers['content-security-policy'])).toContain("default-src 'none'");
    for (const path of Object.keys(paths)) expect(page.text, path).toContain(path);
    for (const source of new Set(ALL_ENDPOINTS.map((e) => e.source))) expect(page.text).toContain(`<h2>${source}</h2>`);
    expect(page.text.match(/<details>/g)?.length ?? 0).toBeGreaterThan(ALL_ENDPOINTS.length / 2);
    expect(page.text).not.toMatch(/<(script|link|img)[^>]+src=/i);
    expect(page.text).not.toContain('<!--OPERATIONS-->');
  });

  it('tolerates schemas JSON Schema cannot express, recursion, and a schema whose conversion throws', () => {
    interface Node { name: string; children: Node[] }
    const Tree: z.ZodType<Node> = z.lazy(() => z.object({ name: z.string(), children: z.array(Tree) }));
    const Broken = z.object({
      get boom(): z.ZodString {
        throw new Error('cannot build this shape');
      },
    });
    const endpoints: EndpointSpec[] = [
      {
        id: 'transformed', method: 'POST', path: '/api/x/<a>/y/<b>', upstream: 'api', source: 'test', summary: 'transforms',
        query: z.object({ n: z.string().transform((s) => Number(s)), at: z.date().optional() }),
        body: z.object({ when: z.string().refine((s) => s.length > 0).transform((s) => new Date(s)), big: z.bigint().optional() }),
        response: z.object({ at: z.date(), id: z.string().transform((s) => s.toUpperCase()) }),
      },
      { id: 'recursive', method: 'GET', path: '/api/tree', upstream: 'builder', source: 'test', summary: 'recursion', response: Tree },
      { id: 'broken', method: 'PUT', path: '/api/broken/<id>', upstream: 'auth', source: 'test', summary: 'throws', body: Broken, response: Broken },
    ];
    const { document, operations } = buildApiDocs(endpoints, '0.0.0');
    expect(checkDocument(document).operations).toBe(3);
    expect(operations.map((o) => o.path)).toEqual(['/api/x/{a}/y/{b}', '/api/tree', '/api/broken/{id}']);
    const broken = (document.paths as Record<string, Record<string, Json>>)['/api/broken/{id}']!.put!;
    expect((broken.requestBody as { content: Record<string, { schema: unknown }> }).content['application/json']!.schema).toEqual({});
  });
});
