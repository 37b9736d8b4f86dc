/**
 * `npm run bench:reply-latency`: how soon a customer's reply reaches the
 * platform when replies to one conversation land on alternating replicas.
 * Two `threadgate serve` children on one throwaway PostgreSQL 15 cluster
 * (test/support/postgres-server.ts), a webhook connector `hook` on each; the
 * platform is a sandbox in this process, which notes when each message's
 * post arrives (its `preHandler`, after the body is read). Replies go one at
 * a time (the next once the last arrived), reply n to replica n mod 2, in
 * THREADS conversations taken in turn, so each conversation's replies too
 * alternate between the replicas and its post jobs (one order key) hand over
 * from one replica to the other. Latency: from the webhook's 2xx at the
 * sender to the post's arrival at the platform. One run with
 * `store.wakeups` on (the default), one with it off (the runners' 1 s poll
 * alone). BENCH_REPLIES (300) measured after WARMUP replies.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { stringify } from 'yaml';
import { buildSandboxApp } from '../../src/sandbox/index.ts';
import { startPostgres, type RunningPostgres } from '../../test/support/postgres-server.ts';
import { serve, stop, type Replica } from './receiver-replicas.bench.ts';

const REPLIES = Number(process.env.BENCH_REPLIES ?? 300);
const WARMUP = 30;
const THREADS = 3;
/** A reply that has not arrived by then counts as lost (and fails the run). */
const ARRIVAL_TIMEOUT_MS = 10_000;
const SECRET = `whsec_${Buffer.from('reply-latency-bench-secret-0001').toString('base64')}`;
const MARK = /reply-mark-(\d+)-/;

export interface LatencyResult {
  name: string;
  p50: number;
  p99: number;
  max: number;
  replies: number;
}

/** The platform in this process: a sandbox that tells `arrived` of each posted message's mark, as it arrives. */
async function recordingPlatform(arrived: (mark: number, at: number) => void) {
  const { app, seed } = buildSandboxApp({ logger: false });
  app.addHook('preHandler', async (request) => {
    if (request.method !== 'POST' || !request.url.endsWith('/messages')) return;
    const found = MARK.exec(JSON.stringify(request.body ?? ''));
    if (found) arrived(Number(found[1]), performance.now());
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return { url, seed, close: () => app.close() };
}

async function runCase(name: string, cluster: RunningPostgres, wakeups: boolean): Promise<LatencyResult> {
  const waiting = new Map<number, (at: number) => void>();
  const platform = await recordingPlatform((mark, at) => waiting.get(mark)?.(at));
  const dir = mkdtempSync(join(tmpdir(), 'tg-bench-latency-'));
  const config = join(dir, 'threadgate.yaml');
  writeFileSync(
    config,
    stringify({
      platform: { url: platform.url, organization_id: platform.seed.organization.id, token: platform.seed.token.token },
      server: { public_url: 'http://127.0.0.1:9' },
      store: { url: await cluster.createDatabase(`latency_${wakeups ? 'on' : 'off'}`), wakeups },
      log: { level: 'warn' },
      connectors: [{ name: 'hook', type: 'webhook', room_id: platform.seed.room.id, inbound_secret: SECRET }],
    }),
  );
  const replicas: Replica[] = [];
  try {
    replicas.push(await serve(config), await serve(config));
    const threads = Array.from({ length: THREADS }, () => `conversation-${randomUUID()}`);
    const signer = new Webhook(SECRET);
    const latencies: number[] = [];
    for (let n = 0; n < WARMUP + REPLIES; n++) {
      const arrival = new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`reply ${n} did not reach the platform within ${ARRIVAL_TIMEOUT_MS} ms`)), ARRIVAL_TIMEOUT_MS);
        waiting.set(n, (at) => (clearTimeout(timer), resolve(at)));
      });
      const body = JSON.stringify({
        thread_id: threads[n % THREADS],
        messages: [{ message_id: `m-${randomUUID()}`, sender_id: 'customer@example.test', body: `reply-mark-${n}- Any news on my order?` }],
      });
      const id = `msg_${randomUUID()}`;
      const at = new Date();
      const res = await fetch(`${(replicas[n % 2] as Replica).url}/connectors/hook/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signer.sign(id, at, body) },
        body,
      });
      const answered = performance.now();
      await res.arrayBuffer();
      if (res.status < 200 || res.status > 299) throw new Error(`reply ${n}: the gateway answered ${res.status}`);
      const arrived = await arrival;
      waiting.delete(n);
      if (n >= WARMUP) latencies.push(arrived - answered);
    }
    latencies.sort((a, b) => a - b);
    const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] as number;
    return { name, p50: at(0.5), p99: at(0.99), max: latencies[latencies.length - 1] as number, replies: latencies.length };
  } finally {
    await Promise.all(replicas.map(stop));
    await platform.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchReplyLatency(): Promise<LatencyResult[]> {
  const cluster = await startPostgres();
  try {
    const results = [await runCase('2 replicas, store.wakeups on', cluster, true), await runCase('2 replicas, store.wakeups off', cluster, false)];
    console.log(`${REPLIES} replies, one at a time, to alternating replicas, ${THREADS} conversations; ms from the webhook's 2xx to the post's arrival at the platform`);
    console.log('| case | p50 ms | p99 ms | max ms |');
    console.log('|---|---:|---:|---:|');
    for (const r of results) console.log(`| ${r.name} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ${r.max.toFixed(1)} |`);
    return results;
  } finally {
    await cluster.stop();
  }
}

if (import.meta.main) await benchReplyLatency();
