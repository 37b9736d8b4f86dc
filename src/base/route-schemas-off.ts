/**
 * Fastify's route schemas, switched off in threadgate's Fastify apps (the
 * gateway's and the sandbox platform's). Their routes check what they read
 * with zod and write their answers with `JSON.stringify`, so neither app
 * needs Ajv or fast-json-stringify. Given as the `schemaController` option,
 * these compilers keep Fastify from loading either (about 150 files,
 * 26–29 ms and 8–9 MiB of every start: docs/benchmarks.md, "Start-up"). A
 * route that declares a schema anyway fails when its app gets ready, naming
 * the route, rather than being checked by a compiler nobody chose. Nothing else of ours is imported here, so every
 * room may import it, as it may the rest of src/base/.
 */
import type { FastifyServerOptions } from 'fastify';
import { ThreadgateError } from './errors.ts';

/** A route declared a Fastify schema, which threadgate's apps do not compile. */
export class RouteSchemaUnsupportedError extends ThreadgateError {
  readonly code = 'TG_ROUTE_SCHEMA_UNSUPPORTED';
}

type SchemaController = NonNullable<FastifyServerOptions['schemaController']>;

/** What Fastify hands a schema compiler: the route and the part (a validator) or the status (a serializer). */
interface RouteOfSchema {
  method: string;
  url: string;
  httpPart?: string;
  httpStatus?: string;
}

function refuse(what: string) {
  return ({ method, url, httpPart, httpStatus }: RouteOfSchema): never => {
    const part = httpPart ?? httpStatus;
    throw new RouteSchemaUnsupportedError(
      `${method} ${url} declares a ${what} schema${part === undefined ? '' : ` (${part})`}: ` +
        "threadgate's routes check their input with zod and are not compiled by Fastify",
    );
  };
}

/**
 * The `schemaController` option of every Fastify app of threadgate. (The Ajv compiler's type describes its compiler
 * as taking a bare schema; Fastify calls every compiler with the route's definition, as `refuse` reads it.)
 */
export const ROUTE_SCHEMAS_OFF = {
  compilersFactory: {
    buildValidator: () => refuse('validation'),
    buildSerializer: () => refuse('response'),
  },
} as unknown as SchemaController;
