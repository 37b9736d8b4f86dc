/**
 * `/healthz`: the process is alive. `/readyz`: the store is open and every
 * migration applied, so traffic may be sent here; each connector's own health
 * is reported beside it (informative: a disconnected mailbox does not stop
 * the gateway from taking webhooks).
 */
import type { FastifyInstance } from 'fastify';
import type { ConnectorHealth } from '../connector/api.ts';
import type { Store } from '../store/database.ts';

export function registerHealthRoutes(
  app: FastifyInstance,
  store: Store,
  connectorHealth?: () => Promise<Record<string, ConnectorHealth>>,
): void {
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
    const connectors = connectorHealth ? await connectorHealth() : {};
    return reply.status(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not_ready', checks, connectors });
  });
}
