/**
 * A connector's `platform_concurrency` caps how many of its threads are
 * posted to the platform at once; another connector's posts do not wait
 * behind its backlog. The platform's POSTs of one connector are held in a
 * proxy in front of the sandbox, so what runs at once is counted there.
 */
import { describe, expect, it } from 'vitest';
import { startTestSandbox } from '../sandbox/support.ts';
import { RECORDER_MODULE, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { startOutageProxy } from '../support/outage-proxy.ts';
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

describe('platform posts per connector', () => {
  it('posts a connector of platform_concurrency 1 one thread at a time, while another connector’s posts go past its backlog', async () => {
    const sandbox = await startTestSandbox();
    const proxy = await startOutageProxy(sandbox.url);
    const tg = await startTestGateway({ connectors: [slow, quick], sandbox, platformUrl: proxy.url });
    await until(async () => (await tg.gateway.store.read.registrations.get('slow')) !== undefined, 10_000, 'slow registered');
    const { configId } = (await tg.gateway.store.read.registrations.get('slow'))!;
    proxy.hold = (method, url) => method === 'POST' && url.includes(configId) && url.endsWith('/messages');
    const threads = ['S-1', 'S-2', 'S-3', 'S-4'];
    for (const thread of threads) await submit(tg, 'slow', thread);
    await until(() => proxy.held > 0, 10_000, 'a post of slow at the platform');
    await submit(tg, 'quick', 'Q-1');
    await until(() => posted(tg, 'quick', 'Q-1'), 10_000, 'quick’s message posted');
    expect(proxy.held).toBe(1); // slow's other three threads still wait for its one slot
    await until(
      async () => {
        proxy.release();
        return (await Promise.all(threads.map((t) => posted(tg, 'slow', t)))).every(Boolean);
      },
      10_000,
      'slow’s four threads posted',
    );
    expect(proxy.peakHeld).toBe(1);
  });
});
