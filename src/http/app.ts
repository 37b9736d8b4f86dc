/**
 * The gateway's Fastify app, built apart from `listen()` so tests build a
 * fresh one each time and use inject() or a real port 0.
 */
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { WebhookIntake } from '../bridge/webhook-intake.ts';
import type { Settings } from '../config/schema.ts';
import type { ConnectorHealth } from '../connector/api.ts';
import type { ConnectorRouteTable } from '../connector/route-table.ts';
import type { Logger } from '../logger.ts';
import type { Store } from '../store/database.ts';
import { registerConnectorRoutes } from './connector-routes.ts';
import { installErrorHandlers } from './errors.ts';
import { registerHealthRoutes } from './health-routes.ts';
import { registerWebhookRoutes } from './webhook-routes.ts';

export interface AppDeps {
  settings: Readonly<Settings>;
  store: Store;
  logger: Logger;
  /** The receiver of platform webhooks; absent in tests of the bare app. */
  intake?: WebhookIntake;
  connectorRoutes?: ConnectorRouteTable;
  connectorHealth?: () => Promise<Record<string, ConnectorHealth>>;
}

export function buildApp(deps: AppDeps): FastifyInstance {
  const app = Fastify({
    loggerInstance: deps.logger.child({ room: 'http' }) as FastifyBaseLogger,
    bodyLimit: deps.settings.server.body_limit_bytes,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
  });
  installErrorHandlers(app);
  registerHealthRoutes(app, deps.store, deps.connectorHealth);
  const limit = deps.settings.server.body_limit_bytes;
  if (deps.intake) registerWebhookRoutes(app, deps.intake, limit);
  if (deps.connectorRoutes) registerConnectorRoutes(app, deps.connectorRoutes, limit);
  return app;
}
