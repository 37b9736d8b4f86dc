/**
 * The gateway's Fastify app, built apart from `listen()` so tests build a
 * fresh one each time and use inject() or a real port 0.
 */
import type { LiveFeed } from '../base/live-feed.ts';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyPluginAsync } from 'fastify';
import type { FileService } from '../bridge/files.ts';
import type { WebhookIntake } from '../bridge/webhook-intake.ts';
import type { Settings } from '../config/schema.ts';
import type { ConnectorHealth } from '../connector/api.ts';
import type { ConnectorRouteTable } from '../connector/route-table.ts';
import { lazyChild } from '../log/lazy-child.ts';
import { ROUTE_SCHEMAS_OFF } from '../base/route-schemas-off.ts';
import type { Logger } from '../log/logger.ts';
import type { Store } from '../store/database.ts';
import type { AdminBridge, AdminDeps } from './admin/index.ts';
import { registerApiDocs } from './api-docs/routes.ts';
import { registerConnectorRoutes } from './connector-routes.ts';
import { answerFrameworkError, installErrorHandlers } from './errors.ts';
import { registerFileRoutes } from './file-routes.ts';
import { GatewayHealth } from './gateway-health.ts';
import { registerHealthRoutes } from './health-routes.ts';
import { registerMetricsRoute, type GatewayMetrics } from './metrics.ts';
import type { ProxyHandler } from './proxy/proxy-handler.ts';
import { proxyFirstServer, registerProxyRoutes } from './proxy/proxy-routes.ts';
import { registerWebhookRoutes } from './webhook-routes.ts';

export interface AppDeps {
  settings: Readonly<Settings>;
  store: Store;
  logger: Logger;
  /** The receiver of platform webhooks; absent in tests of the bare app. */
  intake?: WebhookIntake;
  connectorRoutes?: ConnectorRouteTable;
  connectorHealth?: () => Promise<Record<string, ConnectorHealth>>;
  /** The judgement of /readyz, the admin overview and the gauges; default: the store and connectorHealth alone. */
  health?: GatewayHealth;
  /** What the admin API acts through (the bridge); without it, or without server.admin_token, /admin is off. */
  admin?: AdminBridge;
  /** Served at /metrics when given. */
  metrics?: GatewayMetrics;
  /** The proxy of the platform's documented API (src/cli/proxy-setup.ts makes it when the settings turn it on); absent: off. */
  proxy?: ProxyHandler;
  /** The file store, served at /files/<id> through signed links; absent in tests of the bare app. */
  files?: FileService;
  /** What `GET /admin/api/events` streams (with the admin API on). */
  feed?: LiveFeed;
}

export function buildApp(deps: AppDeps): FastifyInstance {
  const proxy = deps.proxy;
  const app = Fastify({
    ...(proxy ? { serverFactory: proxyFirstServer(proxy) } : {}),
    loggerInstance: deps.logger.child({ room: 'http' }) as FastifyBaseLogger,
    // Each request's logger (its reqId) is made only if the request writes a line: see src/log/lazy-child.ts.
    childLoggerFactory: (logger, bindings, options) => lazyChild(logger as Logger, bindings, options) as FastifyBaseLogger,
    bodyLimit: deps.settings.server.body_limit_bytes,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    frameworkErrors: answerFrameworkError,
    // Every route checks its input with zod: Fastify need not load Ajv or fast-json-stringify (route-schemas-off.ts).
    schemaController: ROUTE_SCHEMAS_OFF,
  });
  installErrorHandlers(app);
  closeIdleWhileClosing(app);
  const health = deps.health ?? new GatewayHealth({ store: deps.store, ...(deps.connectorHealth ? { connectors: deps.connectorHealth } : {}) });
  registerHealthRoutes(app, health);
  const limit = deps.settings.server.body_limit_bytes;
  if (deps.intake) registerWebhookRoutes(app, deps.intake, limit);
  if (deps.connectorRoutes) registerConnectorRoutes(app, deps.connectorRoutes, limit);
  if (deps.files) registerFileRoutes(app, deps.files);
  if (deps.metrics) registerMetricsRoute(app, deps.metrics);
  if (proxy) registerProxyRoutes(app, proxy);
  registerApiDocs(app, deps.proxy !== undefined);
  // Browsers ask every origin for one; an empty answer keeps 404s out of the log and the console.
  app.get('/favicon.ico', async (_request, reply) => reply.code(204).header('cache-control', 'public, max-age=86400').send());
  registerAdminWhenOn(app, {
    token: deps.settings.server.admin_token,
    store: deps.store,
    bridge: deps.admin,
    health,
    logger: deps.logger,
    ...(deps.feed ? { feed: deps.feed } : {}),
  });
  return app;
}

/**
 * `forceCloseConnections: 'idle'` closes the connections idle when `close` begins; one busy then (a webhook that
 * arrived just as the gateway stopped) is answered and goes idle later, and would hold `close` for the server's
 * keep-alive timeout (72 s). While closing, idle connections are closed every 100 ms.
 */
function closeIdleWhileClosing(app: FastifyInstance): void {
  let sweep: NodeJS.Timeout | undefined;
  app.addHook('preClose', (done) => {
    sweep = setInterval(() => app.server.closeIdleConnections(), 100);
    done();
  });
  app.addHook('onClose', (_instance, done) => {
    clearInterval(sweep);
    done();
  });
}

/**
 * The admin API and page, only with `server.admin_token` set (and a bridge to act through); otherwise one info line
 * says they are off. Their modules (routes, zod schemas, OpenAPI document, page) are imported only then
 * (docs/decisions/footprint.md), by a plugin Fastify loads at `ready()`, not encapsulated (what fastify-plugin
 * marks): its routes and hooks are the app's own, as if registered in place.
 */
function registerAdminWhenOn(app: FastifyInstance, deps: AdminDeps): void {
  const logger = deps.logger.child({ room: 'admin' });
  if (!deps.token) {
    logger.info({ event: 'admin_off' }, 'admin API and page are off: set server.admin_token (16+ characters) to serve /admin and /admin/api');
    return;
  }
  if (!deps.bridge) {
    logger.info({ event: 'admin_off' }, 'admin API and page are off: this app has no bridge to act through');
    return;
  }
  const admin: FastifyPluginAsync = async (root) => (await import('./admin/index.ts')).registerAdmin(root, deps);
  Object.assign(admin, { [Symbol.for('skip-override')]: true });
  void app.register(admin);
}
