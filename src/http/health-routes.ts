/**
 * `/healthz`: the process is alive (liveness: restart it when this fails).
 * `/readyz`: traffic may be sent here (load balancers): 503 until the store
 * is open and every connector's channel is registered or known from the
 * store, and while the store is unavailable. `/readyz?strict=1` (monitors,
 * not load balancers): also 503 while the platform does not answer or
 * refuses the token, or a connector is down or paused. Both bodies carry
 * the whole report (`gateway-health.ts`); a change of the answer is logged.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { parseInput } from './admin/route-table.ts';
import type { GatewayHealth } from './gateway-health.ts';

const ReadyQuery = z.strictObject({ strict: z.enum(['0', '1', 'true', 'false']).optional() });

export function registerHealthRoutes(app: FastifyInstance, health: GatewayHealth): void {
  app.get('/healthz', async () => ({ status: 'ok' }));

  let lastAnswer: number | undefined;
  app.get('/readyz', async (request, reply) => {
    const query = parseInput(ReadyQuery, request.query ?? {}, 'query');
    const strict = query.strict === '1' || query.strict === 'true';
    const report = await health.report();
    const ok = strict ? report.healthy : report.ready;
    if (!strict && lastAnswer !== undefined && lastAnswer !== (ok ? 200 : 503)) {
      request.log.info({ event: 'readiness_changed', ready: ok, problems: report.problems }, ok ? 'the gateway is ready' : 'the gateway is not ready');
    }
    if (!strict) lastAnswer = ok ? 200 : 503;
    return reply.status(ok ? 200 : 503).send({ status: ok ? 'ready' : 'not_ready', strict, ...report });
  });
}
