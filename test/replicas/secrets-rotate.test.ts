/**
 * `threadgate secrets rotate` run beside one replica is seen by all: each of
 * three `serve` processes accepts webhooks signed with the new secret and,
 * once rotated out with `--grace 0s`, refuses the old one — none keeps the
 * secret it read at start.
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { signedHeaders } from '../../src/platform/signature.ts';
import { runCliAsync } from '../support/cli.ts';
import { messageCreatedEnvelope } from '../support/events.ts';
import { startAll, startReplicaCluster } from '../support/replica-cluster.ts';
import { sleep } from '../support/wait.ts';

async function registration(storeUrl: string): Promise<{ config_id: string; secret: string }> {
  const db = new pg.Client({ connectionString: storeUrl });
  await db.connect();
  try {
    return (await db.query<{ config_id: string; secret: string }>("select config_id, secret from channel_registrations where connector = 'desk'")).rows[0]!;
  } finally {
    await db.end();
  }
}

describe('a secret rotated on one replica', () => {
  it('is accepted by every replica, and the old one refused by every replica', { timeout: 90_000 }, async () => {
    const cluster = await startReplicaCluster({ replicas: 3, connectors: [{ name: 'desk', type: 'webhook', allow_unsigned: true }] });
    await startAll(cluster);
    const before = await registration(cluster.storeUrl);
    const send = (url: string, secret: string) => {
      const raw = JSON.stringify(messageCreatedEnvelope({ threadId: 'desk:T-rot', configId: before.config_id, roomId: cluster.sandbox.roomId }));
      return fetch(`${url}/webhooks/desk`, { method: 'POST', headers: { 'content-type': 'application/json', ...signedHeaders(secret, raw) }, body: raw });
    };
    // Every replica has read the old secret and takes webhooks signed with it.
    for (const r of cluster.replicas) expect((await send(r.url, before.secret)).status).toBe(200);

    const rotated = await runCliAsync(['secrets', 'rotate', 'desk', '--grace', '0s', '--config', cluster.replicas[1]!.configFile]);
    expect(rotated.stderr).toBe('');
    expect(rotated.status).toBe(0);
    const after = await registration(cluster.storeUrl);
    expect(after.secret).not.toBe(before.secret);

    // Each reads its secrets again at least once a second.
    await sleep(1_100);
    for (const r of cluster.replicas) {
      expect((await send(r.url, after.secret)).status, `replica ${r.index}, the new secret`).toBe(200);
      expect((await send(r.url, before.secret)).status, `replica ${r.index}, the old secret`).toBe(401);
    }
  });
});
