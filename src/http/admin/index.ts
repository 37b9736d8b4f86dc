/**
 * The admin API (`/admin/api/…`) and page (`/admin`), registered only when
 * `server.admin_token` is set (app.ts imports this module then).
 * Every API route but the OpenAPI document needs the token. Params, query
 * and body are checked with the route's zod schemas before the handler runs:
 * a bad field is a 400 naming it, an unknown id a 404, all as JSON.
 */
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Store } from '../../store/database.ts';
import type { GatewayHealth } from '../gateway-health.ts';
import { PACKAGE_VERSION } from '../inline-page.ts';
import { requireAdminToken } from './auth.ts';
import { deliveryRoutes } from './delivery-routes.ts';
import { inboundRoutes } from './inbound-routes.ts';
import { jobRoutes } from './job-routes.ts';
import { API_PREFIX, buildOpenApiDocument, OPENAPI_PATH } from './openapi.ts';
import { overviewRoutes } from './overview-routes.ts';
import { registerAdminPage } from './page.ts';
import { replayRoutes } from './replay-routes.ts';
import { skippedRoutes } from './skipped-routes.ts';
import { registerLiveEvents } from './live-events-route.ts';
import type { LiveFeed } from '../../base/live-feed.ts';
import { ReplayRuns } from './replay-runs.ts';
import { parseInput, type AdminBridge, type AdminRoute, type AdminServices } from './route-table.ts';

export type { AdminBridge } from './route-table.ts';

export const ADMIN_ROUTES: readonly AdminRoute[] = [...overviewRoutes, ...deliveryRoutes, ...replayRoutes, ...inboundRoutes, ...skippedRoutes, ...jobRoutes];

export interface AdminDeps {
  token: string | undefined;
  store: Store;
  bridge: AdminBridge | undefined;
  health: GatewayHealth;
  logger: Logger;
  /** The live feed `GET /admin/api/events` streams; absent: no stream. */
  feed?: LiveFeed;
}

/** Serves the admin API and page; app.ts calls it when `deps.token` and `deps.bridge` are there. */
export function registerAdmin(app: FastifyInstance, deps: AdminDeps): void {
  const logger = deps.logger.child({ room: 'admin' });
  if (!deps.token || !deps.bridge) return; // app.ts said so already
  const runs = new ReplayRuns({ store: deps.store, replayer: deps.bridge.replayer, logger });
  const services: AdminServices = {
    store: deps.store,
    bridge: deps.bridge,
    health: deps.health,
    runs,
    logger,
  };
  const document = buildOpenApiDocument(ADMIN_ROUTES, PACKAGE_VERSION);
  app.addHook('onClose', () => runs.close());
  // Before the server waits for its connections: the live streams end, or a listener would hold the stop.
  if (deps.feed) app.addHook('preClose', (done) => (deps.feed?.close(), done()));

  registerAdminPage(app);
  app.get(OPENAPI_PATH, async () => document);
  void app.register(async (scope) => {
    scope.addHook('onRequest', requireAdminToken(deps.token as string));
    if (deps.feed) registerLiveEvents(scope, deps.feed);
    for (const route of ADMIN_ROUTES) {
      scope.route({
        method: route.method,
        url: API_PREFIX + route.path,
        handler: async (request, reply) => {
          const input = {
            params: route.params ? parseInput(route.params, request.params, 'params') : undefined,
            query: route.query ? parseInput(route.query, request.query ?? {}, 'query') : undefined,
            body: route.body ? parseInput(route.body, request.body, 'body') : undefined,
          };
          const answer = await route.handle(input, services);
          return reply.status(route.status ?? 200).send(answer);
        },
      });
    }
  });
  logger.info({ event: 'admin_on', page: '/admin', api: API_PREFIX, openapi: OPENAPI_PATH }, 'admin API and page are on');
}
