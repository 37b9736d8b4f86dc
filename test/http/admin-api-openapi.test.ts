/** The admin API's OpenAPI document: it lists every route, with parameters, bodies and resolvable schemas. */
import { describe, expect, it } from 'vitest';
import { ADMIN_ROUTES } from '../../src/http/admin/index.ts';
import { startAdminGateway } from '../support/admin-gateway.ts';

describe('admin API: OpenAPI', () => {
  it('serves an OpenAPI 3.1 document that lists every route, with parameters, bodies and resolvable schemas', async () => {
    const tg = await startAdminGateway();
    const res = await tg.call('GET', '/admin/api/openapi.json');
    expect(res.status).toBe(200);
    const doc = JSON.parse(res.text) as {
      openapi: string;
      paths: Record<string, Record<string, { operationId: string; parameters: { name: string; in: string; required: boolean }[]; requestBody?: unknown; responses: Record<string, unknown>; security?: unknown[] }>>;
      components: { schemas: Record<string, unknown>; securitySchemes: Record<string, { type: string; scheme: string }> };
    };
    expect(doc.openapi).toBe('3.1.0');
    const operations = Object.entries(doc.paths).flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`)).sort();
    expect(operations).toEqual([
      'GET /admin/api/connectors',
      'GET /admin/api/counts',
      'GET /admin/api/deliveries',
      'GET /admin/api/deliveries/{id}',
      'GET /admin/api/health',
      'GET /admin/api/inbound',
      'GET /admin/api/inbound/{id}',
      'GET /admin/api/jobs',
      'GET /admin/api/openapi.json',
      'GET /admin/api/replays/{id}',
      'GET /admin/api/skipped',
      'POST /admin/api/deliveries/{id}/replay',
      'POST /admin/api/inbound/retry',
      'POST /admin/api/inbound/{id}/retry',
      'POST /admin/api/jobs/retry',
      'POST /admin/api/jobs/{id}/retry',
      'POST /admin/api/replays',
    ]);
    // Every route the API serves is in the document.
    for (const route of ADMIN_ROUTES) expect(doc.paths[`/admin/api${route.path.replace(/:(\w+)/g, '{$1}')}`]?.[route.method.toLowerCase()]?.operationId).toBe(route.operationId);
    expect(doc.components.securitySchemes.adminToken).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.paths['/admin/api/openapi.json']!.get!.security).toEqual([]);

    const list = doc.paths['/admin/api/deliveries']!.get!;
    expect(list.parameters.map((p) => p.name).sort()).toEqual(['before', 'connector', 'event', 'limit', 'since', 'status', 'thread', 'until']);
    expect(list.parameters.every((p) => p.in === 'query' && !p.required)).toBe(true);
    expect(list.parameters.find((p) => p.name === 'limit')).toMatchObject({ schema: { type: 'integer', minimum: 1, maximum: 1000 } });
    expect(doc.paths['/admin/api/deliveries/{id}']!.get!.parameters).toEqual([expect.objectContaining({ name: 'id', in: 'path', required: true })]);
    expect(Object.keys(doc.paths['/admin/api/deliveries/{id}/replay']!.post!.responses).sort()).toEqual(['202', '400', '401', '404', '409']);
    expect(doc.paths['/admin/api/replays']!.post!.requestBody).toEqual({ required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/ReplayRequest' } } } });
    const replayRequest = doc.components.schemas.ReplayRequest as { properties: Record<string, unknown>; required: string[] };
    expect(Object.keys(replayRequest.properties).sort()).toEqual(['connector', 'dry_run', 'event', 'since', 'status', 'thread', 'until']);
    expect(replayRequest.required).toEqual(['status']);

    // Every $ref points at a component that exists.
    const refs = [...res.text.matchAll(/"\$ref":"([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThan(20);
    for (const ref of new Set(refs)) expect(doc.components.schemas[ref.replace('#/components/schemas/', '')], ref).toBeDefined();
  });
});
