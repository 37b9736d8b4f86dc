/**
 * Three real `serve` processes started at the same instant on one empty
 * PostgreSQL database, behind a balancer: the migrations are applied once,
 * each connector gets exactly one channel configuration on the platform, and
 * every replica is ready and answers for the same connectors.
 */
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { startAll, startReplicaCluster } from '../support/replica-cluster.ts';

const PG_MIGRATIONS = readdirSync(fileURLToPath(new URL('../../migrations/postgres', import.meta.url))).filter((f) => f.endsWith('.sql'));

describe('three replicas started together on an empty database', () => {
  it('migrate once, register each connector once, and all become ready', { timeout: 90_000 }, async () => {
    const cluster = await startReplicaCluster({
      replicas: 3,
      connectors: [
        { name: 'desk', type: 'webhook', allow_unsigned: true },
        { name: 'partner', type: 'webhook', allow_unsigned: true },
      ],
    });
    await startAll(cluster);

    const configs = (await cluster.sandbox.call('GET', `${cluster.sandbox.um}?page_size=100`)).body.results as { id: string; reply_webhook_url: string }[];
    expect(configs.map((c) => c.reply_webhook_url).sort()).toEqual([`${cluster.balancer.url}/webhooks/desk`, `${cluster.balancer.url}/webhooks/partner`]);

    const db = new pg.Client({ connectionString: cluster.storeUrl });
    await db.connect();
    try {
      const migrations = (await db.query<{ name: string }>('select name from threadgate_migrations order by name')).rows.map((r) => r.name);
      expect(migrations).toEqual([...PG_MIGRATIONS].sort());
      const registrations = (await db.query<{ connector: string; config_id: string }>('select connector, config_id from channel_registrations order by connector')).rows;
      expect(registrations.map((r) => r.connector)).toEqual(['desk', 'partner']);
      expect(registrations.map((r) => r.config_id).sort()).toEqual(configs.map((c) => c.id).sort());
    } finally {
      await db.end();
    }

    for (const replica of cluster.replicas) {
      const res = await fetch(`${replica.url}/readyz`);
      expect(res.status).toBe(200);
    }
    // Each replica takes messages for a connector registered by another.
    for (let n = 0; n < 3; n++) {
      const res = await fetch(`${cluster.balancer.url}/connectors/partner/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ thread_id: `t${n}`, messages: [{ message_id: `m${n}`, sender_id: 'ann@example.com', body: `hello ${n}` }] }),
      });
      expect(res.status).toBe(202);
    }
  });
});
