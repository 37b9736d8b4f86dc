/**
 * The replica cluster's own promise (./replica-cluster.ts): a replica whose
 * port another process took after it was found free starts on a new port, and
 * the balancer sends requests there.
 */
import { createServer } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startReplicaCluster } from './replica-cluster.ts';

describe('the replica cluster', () => {
  it('starts a replica whose port was taken on a new one, behind the same balancer', { timeout: 60_000 }, async () => {
    const cluster = await startReplicaCluster({ replicas: 1, connectors: [{ name: 'desk', type: 'webhook', allow_unsigned: true }] });
    const replica = cluster.replicas[0]!;
    const taken = replica.port;
    const squatter = createServer();
    await new Promise<void>((resolve) => squatter.listen(taken, '127.0.0.1', resolve));
    onTestFinished(() => new Promise<void>((resolve) => squatter.close(() => resolve())));

    await cluster.start(0);
    expect(replica.port).not.toBe(taken);
    expect(replica.url).toBe(`http://127.0.0.1:${replica.port}`);
    expect((await fetch(`${replica.url}/readyz`)).status).toBe(200);
    expect((await fetch(`${cluster.balancer.url}/readyz`)).status).toBe(200);
  });
});
