/**
 * How an admin API route is declared: method, path, the zod schemas of its
 * params, query and body, the schema of its answer and a handler. One table
 * of these is both what Fastify serves (admin/index.ts) and what the OpenAPI
 * document describes (admin/openapi.ts), so the two cannot drift apart.
 */
import type { Logger } from 'pino';
import { z } from 'zod';
import type { Bridge } from '../../bridge/bridge.ts';
import type { Store } from '../../store/database.ts';
import { RequestInvalidError, type FieldError } from '../errors.ts';
import type { GatewayHealth } from '../gateway-health.ts';
import type { ReplayRuns } from './replay-runs.ts';

/** The parts of the bridge the admin API reads and acts through. */
export type AdminBridge = Pick<Bridge, 'replayer' | 'queue' | 'runner'>;

export interface AdminServices {
  store: Store;
  bridge: AdminBridge;
  /** Readiness, platform and connector health: the report /readyz answers with. */
  health: GatewayHealth;
  runs: ReplayRuns;
  logger: Logger;
}

export type Location = 'params' | 'query' | 'body';

export interface RouteSpec<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType> {
  method: 'GET' | 'POST';
  /** Below `/admin/api`, Fastify style (`/deliveries/:id`). */
  path: string;
  operationId: string;
  tag: string;
  summary: string;
  description?: string;
  params?: P;
  query?: Q;
  body?: B;
  /** The success status (200 unless said). */
  status?: number;
  /** The success body; registered as a component (see `component`). */
  response: z.ZodType;
  /** Documented error statuses besides 401 (400 is added when anything is validated). */
  errors?: number[];
  handle(input: { params: z.output<P>; query: z.output<Q>; body: z.output<B> }, services: AdminServices): unknown;
}

export type AdminRoute = RouteSpec<z.ZodType, z.ZodType, z.ZodType>;

export function route<P extends z.ZodType = z.ZodUndefined, Q extends z.ZodType = z.ZodUndefined, B extends z.ZodType = z.ZodUndefined>(
  spec: RouteSpec<P, Q, B>,
): AdminRoute {
  return spec as unknown as AdminRoute;
}

/** The named schemas of the OpenAPI document's `components.schemas`. */
export const components = z.registry<{ id: string }>();

/** Registers `schema` as the component `id` and returns it. */
export function component<T extends z.ZodType>(id: string, schema: T): T {
  components.add(schema, { id });
  return schema;
}

/** Zod issues as field errors named from the request's side: `query.since`, `params.id`, `body.status`. */
export function fieldErrors(error: z.ZodError, location: Location): FieldError[] {
  return error.issues.flatMap((issue) => {
    const at = [location, ...issue.path.map(String)].join('.');
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ path: `${at}.${key}`, message: 'is not a known field here' }));
    }
    return [{ path: at, message: issue.message }];
  });
}

/** `value` checked against `schema`; RequestInvalidError (400) naming every bad field otherwise. */
export function parseInput<T extends z.ZodType>(schema: T, value: unknown, location: Location): z.output<T> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new RequestInvalidError(fieldErrors(parsed.error, location));
  return parsed.data;
}
