/**
 * The proxy's place in the gateway's HTTP server. Proxied calls are the
 * gateway's hottest path, so its server hands a call under the documented
 * prefixes to the proxy (proxy-handler.ts) before Fastify builds a request,
 * a reply and a child logger for it (docs/decisions/proxy-hot-path.md);
 * everything else goes to Fastify. The same prefixes are Fastify
 * routes too, handing over to the same handler, for what the server does not
 * hand over itself: `inject()` in tests, and a HEAD (Fastify's twin of a GET
 * route, answered 405 by the route table).
 */
import type { FastifyInstance, FastifyServerFactory } from 'fastify';
import type { IncomingMessage, ServerOptions, ServerResponse } from 'node:http';
import { createServer } from '../../base/builtins.ts';
import type { ProxyHandler } from './proxy-handler.ts';

/** The route config of the proxy's Fastify routes: their calls are counted by the proxy's own histogram (response-counter.ts). */
export const PROXY_ROUTE_CONFIG = Object.freeze({ proxied: true });

/** The path prefixes the documents use; the proxy answers under these only. */
const PROXY_PREFIXES = ['/api/*', '/authorize', '/callback', '/token'] as const;

/** What of Fastify's own options (with its defaults in) it would give the HTTP/1 server it makes. */
interface ServerSettings {
  http?: ServerOptions;
  keepAliveTimeout?: number;
  requestTimeout?: number;
  connectionTimeout?: number;
  maxRequestsPerSocket?: number;
}

/** Fastify's `serverFactory`: a plain `node:http` server that gives the proxy its calls and Fastify the rest. */
export function proxyFirstServer(proxy: ProxyHandler): FastifyServerFactory {
  return (fastify, fastifyOptions) => {
    const options = fastifyOptions as ServerSettings;
    const server = createServer(options.http ?? {}, (req: IncomingMessage, res: ServerResponse) => {
      if (proxy.claims(req)) proxy.serve(req, res);
      else fastify(req, res);
    });
    // As Fastify sets up the HTTP/1 server it makes itself.
    if (options.keepAliveTimeout !== undefined) server.keepAliveTimeout = options.keepAliveTimeout;
    if (options.requestTimeout !== undefined) server.requestTimeout = options.requestTimeout;
    if (options.connectionTimeout !== undefined) server.setTimeout(options.connectionTimeout);
    if (options.maxRequestsPerSocket) server.maxRequestsPerSocket = options.maxRequestsPerSocket;
    return server;
  };
}

export function registerProxyRoutes(app: FastifyInstance, proxy: ProxyHandler): void {
  // Calls that reach Fastify once it is closing are answered 503 by Fastify; those the server hands over by the proxy.
  app.addHook('preClose', async () => proxy.beginClosing());
  app.addHook('onClose', async () => proxy.close());
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    // Bodies stay unread streams; the proxy reads a checked JSON body itself, within its limit.
    scope.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    for (const url of PROXY_PREFIXES) {
      scope.route({
        method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
        url,
        config: PROXY_ROUTE_CONFIG,
        handler: (request, reply) => {
          reply.hijack();
          proxy.serve(request.raw, reply.raw);
        },
      });
    }
  });
}
