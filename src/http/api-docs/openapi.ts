/**
 * The OpenAPI 3.1 document of the proxied surface: one operation per
 * documented platform endpoint (ALL_ENDPOINTS), generated from its zod
 * schemas with `z.toJSONSchema` as the admin API's document is. Paths are
 * written `{param}`, the query schema becomes parameters, a JSON body the
 * `application/json` request body (as callers send it: `io: 'input'`), an
 * upload `multipart/form-data`, a download a binary answer, the answer
 * schema the 200 `application/json` content. Which upstream serves the path
 * is the `x-upstream` extension. A schema JSON Schema cannot express
 * (transforms, refinements) never breaks the build: it is converted with
 * `unrepresentable: 'any'`, and becomes `{}` if it still throws. Built once.
 */
import { z } from 'zod';
import type { EndpointSpec } from '../../platform/endpoints/types.ts';

export const API_DOCS_PATH = '/api-docs';
export const API_DOCS_JSON_PATH = `${API_DOCS_PATH}/openapi.json`;

export type JsonSchema = Record<string, unknown>;

/** One operation as the page lists it (the schemas are the document's own). */
export interface ApiDocsOperation {
  id: string;
  source: string;
  method: string;
  /** The OpenAPI path (`{param}`). */
  path: string;
  upstream: string;
  summary: string;
  /** Query parameters as one object schema, when documented. */
  query?: JsonSchema;
  /** The request body's schema and media type, when there is one. */
  body?: { mediaType: string; schema: JsonSchema };
  /** The 200 answer's schema and media type, when documented. */
  response?: { mediaType: string; schema: JsonSchema };
}

export interface ApiDocs {
  document: JsonSchema;
  operations: ApiDocsOperation[];
}

const PARAM = /<([^<>/]+)>/g;
const BINARY: JsonSchema = { type: 'string', contentMediaType: 'application/octet-stream' };
const json = (schema: JsonSchema) => ({ 'application/json': { schema } });
const ERROR_REF: JsonSchema = { $ref: '#/components/schemas/GatewayError' };

/** `/a/<x>/b` → `/a/{x}/b`. */
const openApiPath = (path: string): string => path.replace(PARAM, '{$1}');

/** The parameter names of a documented path, in order. */
const pathParams = (path: string): string[] => [...path.matchAll(PARAM)].map((m) => m[1] as string);

/**
 * Converts one schema; `$defs` (recursion, schemas registered with an id) are
 * hoisted into `components` under `<name>_<def>` and their `$ref`s rewritten,
 * so every `$ref` of the document resolves from its root.
 */
class SchemaConverter {
  readonly components: Record<string, JsonSchema> = {};
  private readonly cache = new Map<string, Map<z.ZodType, JsonSchema>>();

  convert(schema: z.ZodType, io: 'input' | 'output', name: string): JsonSchema {
    let byIo = this.cache.get(io);
    if (!byIo) this.cache.set(io, (byIo = new Map()));
    const cached = byIo.get(schema);
    if (cached) return cached;
    const out = this.convertOnce(schema, io, name);
    byIo.set(schema, out);
    return out;
  }

  private convertOnce(schema: z.ZodType, io: 'input' | 'output', name: string): JsonSchema {
    let raw: JsonSchema;
    try {
      raw = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema;
    } catch {
      return {};
    }
    const { $schema: _s, $id: _i, $defs, ...root } = raw as JsonSchema & { $defs?: Record<string, JsonSchema> };
    if (!JSON.stringify(raw).includes('"$ref"')) return root;
    // Refs point into this schema (`#`, `#/$defs/x`): move it and its defs into components.
    const rewrite = (ref: string): string => {
      if (ref === '#') return `#/components/schemas/${name}`;
      const def = /^#\/\$defs\/(.+)$/.exec(ref);
      if (def) return `#/components/schemas/${name}_${safe(def[1] as string)}`;
      if (ref.startsWith('#/')) return `#/components/schemas/${name}/${ref.slice(2)}`;
      return ref;
    };
    this.components[name] = rewriteRefs(root, rewrite);
    for (const [id, def] of Object.entries($defs ?? {})) {
      const { $id: _d, ...rest } = def;
      this.components[`${name}_${safe(id)}`] = rewriteRefs(rest, rewrite);
    }
    return { $ref: `#/components/schemas/${name}` };
  }
}

const safe = (id: string): string => id.replace(/[^A-Za-z0-9._-]/g, '_');

function rewriteRefs<T>(value: T, rewrite: (ref: string) => string): T {
  if (Array.isArray(value)) return value.map((v) => rewriteRefs(v, rewrite)) as T;
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, k === '$ref' && typeof v === 'string' ? rewrite(v) : rewriteRefs(v, rewrite)]),
  ) as T;
}

/** The object schema of a query, with refs followed once into components (a query is a flat object). */
function queryObject(schema: JsonSchema, components: Record<string, JsonSchema>): { properties?: Record<string, JsonSchema>; required?: string[] } {
  const ref = typeof schema.$ref === 'string' ? /^#\/components\/schemas\/([^/]+)$/.exec(schema.$ref) : null;
  return (ref ? (components[ref[1] as string] ?? {}) : schema) as { properties?: Record<string, JsonSchema>; required?: string[] };
}

function operationOf(endpoint: EndpointSpec, converter: SchemaConverter): { operation: JsonSchema; entry: ApiDocsOperation } {
  const path = openApiPath(endpoint.path);
  const parameters: JsonSchema[] = pathParams(endpoint.path).map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
  const entry: ApiDocsOperation = { id: endpoint.id, source: endpoint.source, method: endpoint.method, path, upstream: endpoint.upstream, summary: endpoint.summary };

  if (endpoint.query) {
    const query = converter.convert(endpoint.query, 'input', `${endpoint.id}Query`);
    entry.query = query;
    const object = queryObject(query, converter.components);
    const taken = new Set(parameters.map((p) => p.name));
    for (const [name, property] of Object.entries(object.properties ?? {})) {
      if (taken.has(name)) continue;
      const { description, ...rest } = property;
      parameters.push({
        name,
        in: 'query',
        required: (object.required ?? []).includes(name),
        ...(typeof description === 'string' ? { description } : {}),
        schema: rest,
      });
    }
  }

  let requestBody: JsonSchema | undefined;
  if (endpoint.multipart) {
    const schema: JsonSchema = { type: 'object', description: 'The upload; the form field names are not documented.', additionalProperties: BINARY };
    entry.body = { mediaType: 'multipart/form-data', schema };
    requestBody = { required: true, content: { 'multipart/form-data': { schema } } };
  } else if (endpoint.body) {
    const schema = converter.convert(endpoint.body, 'input', `${endpoint.id}Body`);
    entry.body = { mediaType: 'application/json', schema };
    requestBody = { required: true, content: json(schema) };
  }

  let ok: JsonSchema;
  if (endpoint.download) {
    entry.response = { mediaType: 'application/octet-stream', schema: BINARY };
    ok = { description: 'The file (streamed as the platform sends it).', content: { 'application/octet-stream': { schema: BINARY } } };
  } else if (endpoint.response) {
    const schema = converter.convert(endpoint.response, 'output', `${endpoint.id}Response`);
    entry.response = { mediaType: 'application/json', schema };
    ok = { description: 'Success.', content: json(schema) };
  } else {
    ok = { description: 'Success (the answer is not documented).' };
  }

  const gatewayError = (description: string) => ({ description, content: json(ERROR_REF) });
  const checksBody = endpoint.body !== undefined && !endpoint.multipart;
  const operation: JsonSchema = {
    operationId: endpoint.id,
    tags: [endpoint.source],
    summary: endpoint.summary,
    'x-upstream': endpoint.upstream,
    parameters,
    ...(requestBody ? { requestBody } : {}),
    responses: {
      '200': ok,
      ...(endpoint.redirects ? { '302': { description: 'A redirect, passed to the caller untouched.' } } : {}),
      '400': gatewayError(badRequest(endpoint)),
      '401': gatewayError('No gateway key, or an unknown one.'),
      '403': gatewayError('The gateway key may not call this path.'),
      ...(checksBody ? { '413': gatewayError('`TG_BODY_TOO_LARGE`: the JSON body is over `server.body_limit_bytes`; nothing was sent.') } : {}),
      '429': gatewayError('The gateway key is over its rate limit (see `retry-after`).'),
      '502': gatewayError('`TG_UPSTREAM_UNREACHABLE`: the platform could not be reached (or its answer could not be passed on: `TG_UPSTREAM_INVALID`).'),
      '503': gatewayError('`TG_CLOSING`: the gateway is shutting down; call again (another replica).'),
      '504': gatewayError('`TG_UPSTREAM_TIMEOUT`: the platform did not answer within `proxy.timeout_ms`.'),
      default: { description: 'Any other answer of the platform, passed through.' },
    },
  };
  return { operation, entry };
}

/** What the gateway refuses with 400 on this endpoint, before anything is sent: the path, and what it checks. */
function badRequest(endpoint: EndpointSpec): string {
  const checked = [
    '`TG_PATH_INVALID`: the path has a dot segment, an encoded `/`, `\\`, `#` or `?`, a broken `%` escape or an empty segment (`errors` names `path`)',
    ...(endpoint.query ? ['`TG_REQUEST_INVALID`: the query does not match its schema (`errors` names each `query.<field>`)'] : []),
    ...(endpoint.body && !endpoint.multipart ? ['`TG_REQUEST_INVALID`: the JSON body does not match its schema (`errors` names each field)'] : []),
  ];
  return `Refused by the gateway, nothing sent: ${checked.join('; ')}.`;
}

export function buildApiDocs(endpoints: readonly EndpointSpec[], version: string): ApiDocs {
  const converter = new SchemaConverter();
  const paths: Record<string, Record<string, JsonSchema>> = {};
  const operations: ApiDocsOperation[] = [];
  for (const endpoint of endpoints) {
    const { operation, entry } = operationOf(endpoint, converter);
    const item = (paths[entry.path] ??= {});
    const method = endpoint.method.toLowerCase();
    if (item[method]) throw new Error(`two documented endpoints for ${endpoint.method} ${entry.path}`);
    item[method] = operation;
    operations.push(entry);
  }
  const document: JsonSchema = {
    openapi: '3.1.0',
    info: {
      title: 'threadgate proxied platform API',
      version,
      description:
        'The platform’s documented endpoints as the gateway serves them, at the same paths. `x-upstream` names the configured address that serves each path (`api`: platform.url, `builder`: platform.builder_url, `auth`: platform.auth_url).',
    },
    servers: [{ url: '/' }],
    security: [{ gatewayKey: [] }],
    tags: [...new Set(endpoints.map((e) => e.source))].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: {
        gatewayKey: {
          type: 'http',
          scheme: 'bearer',
          description: 'A key of one of `proxy.clients` (or, in `forward_caller_authorization` mode, the caller’s own platform token).',
        },
      },
      schemas: {
        GatewayError: {
          type: 'object',
          properties: {
            code: { type: 'string' },
            message: { type: 'string' },
            errors: { type: 'array', items: { type: 'object', properties: { path: { type: 'string' }, message: { type: 'string' } } } },
          },
          required: ['code', 'message'],
        },
        ...converter.components,
      },
    },
  };
  return { document, operations };
}
