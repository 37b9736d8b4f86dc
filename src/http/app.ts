/**
 * The gateway's Fastify app, built apart from `listen()` so tests build a
 * fresh one each time and use inject() or a real port 0.
 */
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Settings } from '../config/schema.ts';
import type { Logger } from '../logger.ts';
import type { Store } from '../store/database.ts';
import { installErrorHandlers } from './errors.ts';
import { registerHealthRoutes } from './health-routes.ts';

export interface AppDeps {
  settings: Readonly<Settings>;
  store: Store;
  logger: Logger;
}

export function buildApp(deps: AppDeps): FastifyInstance {
  const app = Fastify({
    loggerInstance: deps.logger.child({ room: 'http' }) as FastifyBaseLogger,
    bodyLimit: deps.settings.server.body_limit_bytes,
    disableRequestLogging: false,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
  });
  installErrorHandlers(app);
  registerHealthRoutes(app, deps.store);
  return app;
}
