/**
 * The database restarted under load (stopped hard, as a crash or a failover
 * does, and started again): replicas answer 503 meanwhile and keep running,
 * and once it is back every customer message accepted with a 202 reaches the
 * platform and every agent reply reaches the customer's system, in order —
 * the restart costs only delay.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { startPostgres } from '../support/postgres-server.ts';
import { startAll, startReplicaCluster } from '../support/replica-cluster.ts';
import { sleep, until } from '../support/wait.ts';
import { deskConnector, orderViolations, platformTexts, receivedReplies, startReplyReceiver, startTraffic, untilAllArrived } from './traffic.ts';

describe('the database restarted under load', () => {
  it('costs only delay: nothing lost, nothing repeated, every replica still up and ready', { timeout: 180_000 }, async () => {
    // A cluster of its own: stopping the run's shared one would break the other test files.
    const own = await startPostgres();
    onTestFinished(() => own.stop());
    const receiver = await startReplyReceiver();
    const cluster = await startReplicaCluster({ replicas: 3, connectors: [deskConnector(receiver)], storeUrl: await own.createDatabase('restart') });
    await startAll(cluster);
    const traffic = await startTraffic(cluster, { threads: 6, everyMs: 120 });

    await sleep(1_500);
    await own.kill();
    await sleep(1_000);
    const during = await fetch(`${cluster.balancer.url}/readyz`);
    expect(during.status).toBe(503);
    // A message is refused with 503 naming the store, so its sender tries again; a platform webhook likewise.
    const refused = await fetch(`${cluster.replicas[0]!.url}/connectors/desk/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ thread_id: 'case-x', messages: [{ message_id: 'x-1', sender_id: 'x@customer.test', body: 'while away' }] }),
    });
    expect(refused.status).toBe(503);
    expect(await refused.json()).toMatchObject({ code: 'TG_STORE_UNAVAILABLE' });
    await sleep(1_000);
    await own.start();
    await sleep(2_500);
    await traffic.stop();

    await untilAllArrived(traffic.sent, () => platformTexts(cluster, traffic.sent.keys()), 60_000, 'every customer message on the platform');
    await untilAllArrived(traffic.replies, async () => receivedReplies(receiver), 60_000, 'every agent reply delivered');
    await sleep(2_000);

    const onPlatform = await platformTexts(cluster, traffic.sent.keys());
    const delivered = receivedReplies(receiver);
    for (const [key, texts] of traffic.sent) expect(onPlatform.get(key), `thread ${key} on the platform`).toEqual(texts);
    // The platform retries each refused webhook on its own schedule, so replies may be accepted in another order than
    // written; each is delivered once, and one accepted before the next was sent is delivered first.
    for (const [key, texts] of traffic.replies) expect([...(delivered.get(key) ?? [])].sort(), `replies of thread ${key}`).toEqual([...texts].sort());
    const order = await orderViolations(cluster, traffic, delivered);
    expect(order.violations).toEqual([]);
    expect(order.owed, 'pairs of replies that owed an order').toBeGreaterThan(100);
    expect(cluster.replicas.every((r) => r.process?.child.exitCode === null)).toBe(true);
    for (const replica of cluster.replicas) {
      await until(async () => (await fetch(`${replica.url}/readyz`)).status === 200, 10_000, `replica ${replica.index} ready again`);
    }
  });
});
