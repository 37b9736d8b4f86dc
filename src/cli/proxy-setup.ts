/**
 * The proxy from the settings: route table from the documented endpoints,
 * callers, upstreams. Imported by `serve` only when the settings turn the
 * proxy on: a gateway without it does not hold the proxy's modules nor every
 * endpoint's schemas (docs/decisions/footprint.md).
 */
import type { Settings } from '../config/schema.ts';
import type { GatewayMetrics } from '../http/metrics.ts';
import { ProxyCallers } from '../http/proxy/callers.ts';
import { ProxyHandler, type ProxyDeps } from '../http/proxy/proxy-handler.ts';
import { ProxyRouteTable } from '../http/proxy/route-table.ts';
import type { Logger } from '../log/logger.ts';
import { ALL_ENDPOINTS } from '../platform/endpoints/index.ts';
import { PostOnce } from '../http/proxy/post-once.ts';
import type { Store } from '../store/database.ts';

export function proxyDeps(
  settings: Readonly<Settings>,
  /** The platform's address, organisation and the Authorization header value in force (read at each call: a reload may change it). */
  platform: { url: string; organizationId: string; authorization: () => string },
  logger: Logger,
  metrics: GatewayMetrics,
  store: Store,
): ProxyDeps {
  return {
    posts: new PostOnce(store),
    table: new ProxyRouteTable(ALL_ENDPOINTS),
    callers: new ProxyCallers(settings.proxy.clients, platform.organizationId),
    upstreams: {
      api: platform.url,
      builder: settings.platform.builder_url ?? platform.url,
      auth: settings.platform.auth_url ?? platform.url,
    },
    get platformAuthorization() {
      return platform.authorization();
    },
    forwardCallerAuthorization: settings.proxy.forward_caller_authorization,
    passthroughUnknown: settings.proxy.passthrough_unknown,
    timeoutMs: settings.proxy.timeout_ms,
    bodyLimit: settings.server.body_limit_bytes,
    logger: logger.child({ room: 'proxy' }),
    onCall: metrics.proxied,
  };
}

/** The proxy's handler, which the app serves before Fastify (src/http/proxy/proxy-routes.ts). */
export function proxyHandler(...args: Parameters<typeof proxyDeps>): ProxyHandler {
  return new ProxyHandler(proxyDeps(...args));
}
