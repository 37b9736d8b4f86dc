/**
 * Three `serve` processes on one PostgreSQL database behind a balancer, with
 * messages flowing both ways, while random replicas are SIGKILLed and started
 * again: every customer message accepted with a 202 reaches the platform and
 * every agent reply reaches the customer's system, each thread in order (a
 * reply accepted before the next one was sent is delivered first), and a kill costs at most one repeated message (the post or the
 * delivery the killed replica had made but not yet recorded), as on one
 * gateway.
 */
import { describe, expect, it } from 'vitest';
import { startAll, startReplicaCluster } from '../support/replica-cluster.ts';
import { sleep } from '../support/wait.ts';
import { deskConnector, firstOccurrences, orderViolations, platformTexts, receivedReplies, startReplyReceiver, startTraffic, untilAllArrived } from './traffic.ts';

const KILLS = 4;

describe('replicas killed while messages flow both ways', () => {
  it('lose nothing, keep each thread in order, repeat at most one message per kill', { timeout: 180_000 }, async () => {
    const receiver = await startReplyReceiver();
    const cluster = await startReplicaCluster({
      replicas: 3,
      connectors: [deskConnector(receiver)],
      // A killed replica's claimed jobs are taken over after their lease: 4 s, not less, so that a live replica the
      // loaded machine starves for a moment keeps its leases (a lease lost without a kill repeats a message too).
      settings: { jobs: { lease_seconds: 4 } },
    });
    await startAll(cluster);
    const traffic = await startTraffic(cluster, { threads: 6, everyMs: 120 });

    const killed: number[] = [];
    await sleep(1_000);
    for (let k = 0; k < KILLS; k++) {
      const up = cluster.up();
      const victim = up[Math.floor(Math.random() * up.length)]!;
      killed.push(victim);
      await cluster.kill(victim);
      await sleep(400);
      await cluster.start(victim);
      await sleep(800);
    }
    await traffic.stop();

    const sentCount = [...traffic.sent.values()].reduce((n, l) => n + l.length, 0);
    const replyCount = [...traffic.replies.values()].reduce((n, l) => n + l.length, 0);
    expect(sentCount, 'customer messages sent during the kills').toBeGreaterThan(100);
    expect(replyCount, 'agent replies written during the kills').toBeGreaterThan(40);

    await untilAllArrived(traffic.sent, () => platformTexts(cluster, traffic.sent.keys()), 60_000, `every customer message on the platform (kills: ${killed.join(', ')})`);
    await untilAllArrived(traffic.replies, async () => receivedReplies(receiver), 60_000, `every agent reply delivered (kills: ${killed.join(', ')})`);
    // Anything still in flight settles before counting repeats.
    await sleep(3_000);

    const onPlatform = await platformTexts(cluster, traffic.sent.keys());
    const delivered = receivedReplies(receiver);
    let repeats = 0;
    for (const [key, texts] of traffic.sent) {
      const seen = firstOccurrences(onPlatform.get(key) ?? []);
      expect(seen.order, `thread ${key} on the platform`).toEqual(texts);
      repeats += seen.repeats;
    }
    for (const [key, texts] of traffic.replies) {
      const seen = firstOccurrences(delivered.get(key) ?? []);
      expect([...seen.order].sort(), `replies of thread ${key}`).toEqual([...texts].sort());
      repeats += seen.repeats;
    }
    const order = await orderViolations(cluster, traffic, delivered);
    expect(order.violations).toEqual([]);
    expect(order.owed, 'pairs of replies that owed an order').toBeGreaterThan(100);
    expect(repeats, 'messages repeated on either side').toBeLessThanOrEqual(KILLS);
    expect(cluster.replicas.map((r) => r.starts).reduce((a, b) => a + b)).toBe(3 + KILLS);
  });
});
