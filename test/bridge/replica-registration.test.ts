/**
 * Replicas on one PostgreSQL database starting at the same instant on an
 * empty database: the migrations run once, and each connector gets exactly
 * one channel configuration on the platform (a lock across replicas around
 * registration), which every replica then uses.
 */
import { describe, expect, it } from 'vitest';
import { Registrar } from '../../src/bridge/registrar.ts';
import { storeLock } from '../../src/bridge/store-lock.ts';
import { createLogger } from '../../src/log/logger.ts';
import { PlatformHttpClient } from '../../src/platform/http-client.ts';
import { createUnifiedMessagingClient } from '../../src/platform/unified-messaging-client.ts';
import { startTestSandbox } from '../sandbox/support.ts';
import { RECORDER_MODULE, startTestGateway } from '../support/gateway.ts';
import { postgresDatabase } from '../support/postgres.ts';
import { openTestStore } from '../support/store-backends.ts';

describe('replicas starting together', () => {
  it('three gateways on one empty database register each connector once', { timeout: 60_000 }, async () => {
    const sandbox = await startTestSandbox();
    const url = await postgresDatabase();
    const connectors = [
      { name: 'desk', type: 'recorder', module: RECORDER_MODULE },
      { name: 'mail', type: 'recorder', module: RECORDER_MODULE },
    ];
    // One public address for all (the load balancer's), as in a real deployment.
    const settings = { store: { url }, server: { public_url: 'http://127.0.0.1:9' } };
    const replicas = await Promise.all([1, 2, 3].map(() => startTestGateway({ connectors, sandbox, settings })));
    const configs = (await sandbox.call('GET', `${sandbox.um}?page_size=100`)).body.results as { id: string; reply_webhook_url: string }[];
    expect(configs.map((c) => c.reply_webhook_url).sort()).toEqual(['http://127.0.0.1:9/webhooks/desk', 'http://127.0.0.1:9/webhooks/mail']);
    for (const tg of replicas) {
      for (const name of ['desk', 'mail']) {
        const row = await tg.gateway.store.read.registrations.get(name);
        expect(configs.map((c) => c.id)).toContain(row?.configId);
      }
    }
    const migrations = await replicas[0]!.gateway.store.read.sql.all<{ name: string }>('select name from threadgate_migrations');
    expect(new Set(migrations.map((m) => m.name)).size).toBe(migrations.length);
  });

  it('registrars of three replicas ensuring one connector at the same instant create one configuration, under the lock', async () => {
    const sandbox = await startTestSandbox();
    const { store } = await openTestStore('postgres');
    const real = createUnifiedMessagingClient({ http: new PlatformHttpClient({ baseUrl: sandbox.url, token: sandbox.token }), organizationId: sandbox.organizationId });
    // Each registrar's look for an existing configuration waits for the others' (or 300 ms): without a lock across
    // replicas all three look before any creates, which is the race.
    let arrived = 0;
    let allThere!: () => void;
    const barrier = new Promise<void>((resolve) => (allThere = resolve));
    const client = new Proxy(real, {
      get(target, key, receiver) {
        if (key !== 'listConfigurations') return Reflect.get(target, key, receiver);
        return async function* (...args: Parameters<typeof real.listConfigurations>) {
          if (++arrived === 3) allThere();
          await Promise.race([barrier, new Promise((r) => setTimeout(r, 300))]);
          yield* real.listConfigurations(...args);
        };
      },
    });
    const target = { connector: 'desk', messagingChannel: 'recorder', roomId: sandbox.roomId, replyWebhookUrl: 'http://127.0.0.1:9/webhooks/desk' };
    const registrars = ['r1', 'r2', 'r3'].map((replica) => new Registrar({ client, store, logger: createLogger('silent'), lock: storeLock(store, replica, 60_000, 20) }));
    const rows = await Promise.all(registrars.map((r) => r.ensure(target)));
    const configs = (await sandbox.call('GET', `${sandbox.um}?page_size=100`)).body.results as { id: string }[];
    expect(configs).toHaveLength(1);
    expect(rows.map((r) => r.configId)).toEqual([configs[0]!.id, configs[0]!.id, configs[0]!.id]);
    expect(new Set(rows.map((r) => r.secret)).size).toBe(1);
  });
});
