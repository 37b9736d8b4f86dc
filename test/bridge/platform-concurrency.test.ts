/**
 * A connector's `platform_concurrency` caps how many of its threads are
 * posted to the platform at once; another connector's posts do not wait
 * behind its backlog. The platform's POSTs of one connector are held in a
 * proxy in front of the sandbox, so what runs at once is counted there. A
 * reload (SIGHUP) that changes it applies at once. /metrics shows each
 * connector's running posts beside its cap.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { startTestSandbox } from '../sandbox/support.ts';
import { RECORDER_MODULE, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { metricValue as value } from '../support/metrics.ts';
import { startOutageProxy, type OutageProxy } from '../support/outage-proxy.ts';
import { until } from '../support/wait.ts';

const slow = { name: 'slow', type: 'recorder', module: RECORDER_MODULE, platform_concurrency: 1 };
const quick = { name: 'quick', type: 'recorder', module: RECORDER_MODULE };

async function submit(tg: TestGateway, connector: string, threadKey: string) {
  const res = await tg.call('POST', `/connectors/${connector}/submit`, { threadKey, messageId: `${threadKey}-1`, senderId: 'ann@example.com', body: `text of ${threadKey}` });
  expect(res.status).toBe(202);
}

async function posted(tg: TestGateway, connector: string, threadKey: string): Promise<boolean> {
  const row = await tg.gateway.store.read.sql.get<{ status: string }>(`select status from inbound_messages where connector = ? and external_id = ?`, [connector, `${threadKey}-1`]);
  return row?.status === 'posted';
}

/** A gateway with `connectors` behind a proxy that holds slow's message posts, `threads` of slow submitted and one post of them held. */
async function slowPostsHeld(connectors: Record<string, unknown>[], threads: readonly string[]) {
  const sandbox = await startTestSandbox();
  const proxy = await startOutageProxy(sandbox.url);
  const tg = await startTestGateway({ connectors, sandbox, platformUrl: proxy.url });
  await until(async () => (await tg.gateway.store.read.registrations.get('slow')) !== undefined, 10_000, 'slow registered');
  const { configId } = (await tg.gateway.store.read.registrations.get('slow'))!;
  proxy.hold = (method, url) => method === 'POST' && url.includes(configId) && url.endsWith('/messages');
  for (const thread of threads) await submit(tg, 'slow', thread);
  await until(() => proxy.held > 0, 10_000, 'a post of slow at the platform');
  return { tg, proxy };
}

/** Lets slow's held posts through until all its `threads` are posted. */
async function releaseUntilPosted(tg: TestGateway, proxy: OutageProxy, threads: readonly string[]): Promise<void> {
  await until(
    async () => {
      proxy.release();
      return (await Promise.all(threads.map((t) => posted(tg, 'slow', t)))).every(Boolean);
    },
    10_000,
    `slow's ${threads.length} threads posted`,
  );
}

describe('platform posts per connector', () => {
  it('posts a connector of platform_concurrency 1 one thread at a time, while another connector’s posts go past its backlog', async () => {
    const threads = ['S-1', 'S-2', 'S-3', 'S-4'];
    const { tg, proxy } = await slowPostsHeld([slow, quick], threads);
    await submit(tg, 'quick', 'Q-1');
    await until(() => posted(tg, 'quick', 'Q-1'), 10_000, 'quick’s message posted');
    expect(proxy.held).toBe(1); // slow's other three threads still wait for its one slot
    // What runs against each cap, as /metrics shows it (quick's job may still be recording its outcome).
    const metrics = (await tg.call('GET', '/metrics')).text;
    expect(value(metrics, 'threadgate_platform_posts_running{connector="slow"}')).toBe(1);
    expect(value(metrics, 'threadgate_platform_posts_concurrency{connector="slow"}')).toBe(1);
    expect(value(metrics, 'threadgate_platform_posts_concurrency{connector="quick"}')).toBe(32); // jobs.concurrency
    await releaseUntilPosted(tg, proxy, threads);
    expect(proxy.peakHeld).toBe(1);
  });

  it('applies a platform_concurrency changed by a reload at once, without a restart', async () => {
    const threads = ['S-1', 'S-2', 'S-3', 'S-4', 'S-5'];
    const { tg, proxy } = await slowPostsHeld([slow], threads);
    const file = join(tg.dir, 'threadgate.yaml');
    const settings = parse(readFileSync(file, 'utf8'));
    settings.connectors[0].platform_concurrency = 3;
    writeFileSync(file, stringify(settings));
    expect(tg.gateway.reload()).toEqual({ applied: ['connectors.0.platform_concurrency'], restartNeeded: [] });
    await until(() => proxy.held === 3, 10_000, 'three posts of slow at the platform');
    await releaseUntilPosted(tg, proxy, threads);
    expect(proxy.peakHeld).toBe(3);
  });
});
