/**
 * `/connectors/<name>/…`: the HTTP routes connectors add through their
 * context, served by one wildcard route with raw bodies. The connector's
 * handler answers; a handler that throws becomes a JSON 5xx without details.
 */
import type { FastifyInstance } from 'fastify';
import type { RouteRequest } from '../connector/api.ts';
import type { ConnectorRouteTable } from '../connector/route-table.ts';
import { ThreadgateError } from '../base/errors.ts';
import { RouteNotFoundError } from './errors.ts';
import { acceptRawBodies, rawBodyOf } from './raw-body.ts';

class MethodNotAllowedError extends ThreadgateError {
  readonly code = 'TG_METHOD_NOT_ALLOWED';
  override readonly statusCode = 405;
}

export function registerConnectorRoutes(app: FastifyInstance, table: ConnectorRouteTable, bodyLimit: number): void {
  void app.register(async (scope) => {
    acceptRawBodies(scope, bodyLimit);
    scope.route<{ Params: { name: string; '*': string } }>({
      method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
      url: '/connectors/:name/*',
      handler: async (request, reply) => {
        const path = `/${request.params['*']}`;
        const match = table.match(request.params.name, request.method, path);
        if (match === undefined) throw new RouteNotFoundError(`no route ${request.method} /connectors/${request.params.name}${path}`);
        if (match === 'method') throw new MethodNotAllowedError(`${request.method} is not served at /connectors/${request.params.name}${path}`);
        const routeRequest: RouteRequest = {
          method: request.method,
          path,
          params: match.params,
          query: Object.fromEntries(Object.entries(request.query as Record<string, unknown>).map(([k, v]) => [k, String(v)])),
          headers: Object.fromEntries(
            Object.entries(request.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : v]),
          ),
          rawBody: rawBodyOf(request.body),
        };
        const res = await match.handler(routeRequest);
        void reply.status(res.status).headers(res.headers ?? {});
        return res.body === undefined ? reply.send() : reply.send(res.body);
      },
    });
  });
}
