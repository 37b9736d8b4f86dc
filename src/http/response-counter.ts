/**
 * `threadgate_http_responses_total{route, method, status}`: every answer of
 * the gateway's own routes (receiver, connector routes, files, admin, health,
 * metrics), by route template, method and status. The route is Fastify's
 * template (`/webhooks/:connector`), `(unmatched)` for a 404 no route took,
 * so the label set stays bounded by the routes registered and the statuses
 * answered. Proxied calls are counted by `threadgate_proxy_request_seconds`
 * instead: most bypass Fastify, and those its routes hand over (a HEAD,
 * `inject()`) carry PROXY_ROUTE_CONFIG and are left out here.
 *
 * The count of each label set is a plain number found by three map lookups
 * of strings the request already holds; prom-client's Counter is filled from
 * them at scrape time only, so the receiver's hot path hashes no label object.
 */
import type { FastifyInstance } from 'fastify';
import { Counter, type Registry } from './prom-client.ts';
import { PROXY_ROUTE_CONFIG } from './proxy/proxy-routes.ts';

export const UNMATCHED_ROUTE = '(unmatched)';

interface Count {
  route: string;
  method: string;
  status: string;
  n: number;
}

export class ResponseCounter {
  /** Route → method → status → its count. */
  readonly #counts = new Map<string, Map<string, Map<number, Count>>>();

  constructor(registry: Registry) {
    const counts = this.#counts;
    new Counter({
      name: 'threadgate_http_responses_total',
      help: "Answers of the gateway's own HTTP routes by route template, method and status (proxied calls: threadgate_proxy_request_seconds).",
      labelNames: ['route', 'method', 'status'],
      registers: [registry],
      collect() {
        this.reset();
        for (const byMethod of counts.values()) {
          for (const byStatus of byMethod.values()) for (const c of byStatus.values()) this.inc({ route: c.route, method: c.method, status: c.status }, c.n);
        }
      },
    });
  }

  count(route: string, method: string, status: number): void {
    let byMethod = this.#counts.get(route);
    if (byMethod === undefined) this.#counts.set(route, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (byStatus === undefined) byMethod.set(method, (byStatus = new Map()));
    const found = byStatus.get(status);
    if (found !== undefined) found.n += 1;
    else byStatus.set(status, { route, method, status: String(status), n: 1 });
  }

  /** Counts every answer of `app` once it is sent, but those of the proxy's routes. */
  install(app: FastifyInstance): void {
    app.addHook('onResponse', (request, reply, done) => {
      const { url, config } = request.routeOptions;
      if ((config as { proxied?: boolean } | undefined)?.proxied !== PROXY_ROUTE_CONFIG.proxied) this.count(url ?? UNMATCHED_ROUTE, request.method, reply.statusCode);
      done();
    });
  }
}
