/**
 * The OpenAPI 3.1 document of the admin API, generated from the route table
 * and its zod schemas (`z.toJSONSchema`, JSON Schema 2020-12 as OpenAPI 3.1
 * uses it): params and query fields become parameters, answers and bodies
 * `$ref` the named components. Built once at start; served without the token
 * (it describes shapes, never data).
 */
import { z } from 'zod';
import { ErrorBody } from './fields.ts';
import { components, type AdminRoute } from './route-table.ts';

export const API_PREFIX = '/admin/api';
export const OPENAPI_PATH = `${API_PREFIX}/openapi.json`;

type JsonSchema = Record<string, unknown>;

const ERROR_TEXT: Record<number, string> = {
  400: 'A field is not valid; `errors` names each one.',
  401: 'No admin token, or a wrong one.',
  404: 'No record with this id.',
  409: 'The record is not in a state that allows this.',
};

const ref = (schema: z.ZodType): JsonSchema => {
  const id = components.get(schema)?.id;
  if (!id) throw new Error('an admin API schema used in the document is not registered as a component');
  return { $ref: `#/components/schemas/${id}` };
};

const json = (schema: JsonSchema) => ({ 'application/json': { schema } });

/** Inputs as clients send them (before transforms), without the 2020-12 `$schema` header. */
function inputSchema(schema: z.ZodType): JsonSchema {
  const { $schema: _s, ...rest } = z.toJSONSchema(schema, { io: 'input' }) as JsonSchema;
  return rest;
}

function parameters(route: AdminRoute): JsonSchema[] {
  const out: JsonSchema[] = [];
  for (const [where, schema] of [['path', route.params], ['query', route.query]] as const) {
    if (!schema) continue;
    const object = inputSchema(schema) as { properties?: Record<string, JsonSchema>; required?: string[] };
    for (const [name, property] of Object.entries(object.properties ?? {})) {
      const { description, ...rest } = property;
      out.push({
        name,
        in: where,
        required: where === 'path' || (object.required ?? []).includes(name),
        ...(description === undefined ? {} : { description }),
        schema: rest,
      });
    }
  }
  return out;
}

function operation(route: AdminRoute): JsonSchema {
  const validates = route.params !== undefined || route.query !== undefined || route.body !== undefined;
  const errors = [...(validates ? [400] : []), 401, ...(route.errors ?? [])];
  return {
    operationId: route.operationId,
    tags: [route.tag],
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    parameters: parameters(route),
    ...(route.body ? { requestBody: { required: true, content: json(ref(route.body)) } } : {}),
    responses: {
      [String(route.status ?? 200)]: { description: route.summary, content: json(ref(route.response)) },
      ...Object.fromEntries(errors.map((s) => [String(s), { description: ERROR_TEXT[s] ?? 'Refused.', content: json(ref(ErrorBody)) }])),
    },
  };
}

export function buildOpenApiDocument(routes: readonly AdminRoute[], version: string): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {
    [OPENAPI_PATH]: {
      get: {
        operationId: 'getOpenApi',
        tags: ['meta'],
        summary: 'This document',
        security: [],
        responses: { '200': { description: 'The OpenAPI 3.1 document.', content: json({ type: 'object' }) } },
      },
    },
  };
  for (const route of routes) {
    const path = API_PREFIX + route.path.replace(/:(\w+)/g, '{$1}');
    (paths[path] ??= {})[route.method.toLowerCase()] = operation(route);
  }
  const { schemas } = z.toJSONSchema(components, { io: 'input', uri: (id) => `#/components/schemas/${id}` });
  const named = Object.fromEntries(
    Object.entries(schemas).map(([id, { $schema: _s, $id: _i, ...schema }]) => [id, schema]),
  );
  return {
    openapi: '3.1.0',
    info: {
      title: 'threadgate admin API',
      version,
      description: 'The delivery log, replays, retries, jobs and connector health of one threadgate gateway.',
    },
    servers: [{ url: '/' }],
    security: [{ adminToken: [] }],
    tags: ['overview', 'deliveries', 'replays', 'inbound', 'jobs', 'meta'].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: {
        adminToken: { type: 'http', scheme: 'bearer', description: 'The gateway’s `server.admin_token`.' },
      },
      schemas: named,
    },
  };
}
