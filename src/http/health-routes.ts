/**
 * `/healthz`: the process is alive. `/readyz`: the store is open and every
 * migration applied, so traffic may be sent here.
 */
import type { FastifyInstance } from 'fastify';
import type { Store } from '../store/database.ts';

export function registerHealthRoutes(app: FastifyInstance, store: Store): void {
  app.get('/healthz', async () => ({ status: 'ok' }));

  app.get('/readyz', async (_request, reply) => {
    const checks: Record<string, string> = {};
    let ready = true;
    try {
      store.sqlite.prepare('select 1').get();
      checks.store = 'open';
      const m = store.migrationStatus();
      checks.migrations = m.current ? `current (${m.applied})` : `pending (${m.applied} of ${m.known})`;
      ready = m.current;
    } catch (err) {
      checks.store = `unavailable: ${(err as Error).message}`;
      ready = false;
    }
    return reply.status(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not_ready', checks });
  });
}
