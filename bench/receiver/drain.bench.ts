/**
 * `npm run bench:drain`: how fast accepted webhooks leave again. A gateway
 * (in this process, settings from a YAML file, store at `synchronous: full`)
 * with a webhook connector whose `outbound_url` is a local HTTP sink; a real
 * sandbox platform. Phase 1: 20,000 distinct signed platform webhooks as
 * fast as 50 connections go (autocannon in a child process), then the time
 * from the last answer until the sink has all of them. Phase 2: a steady load
 * at half the accept rate of phase 1 for 20 s, sampling the delivery backlog
 * (queued + running `connector.deliver` jobs) every second: flat or growing.
 * BENCH_STEADY_RATE sets phase 2's rate instead: phase 1's rate comes from
 * the load's whole seconds, so half of it is 2,500 in one run and 3,334 in
 * the next.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunningGateway as Gateway } from '../../src/cli/gateway.ts';
import { startSandbox } from '../../src/sandbox/index.ts';
import { startBenchGateway } from '../support/bench-gateway.ts';
import type { LoadOutput } from './receiver-load.ts';
import { spawnJson } from '../support/spawn-json.ts';

const WEBHOOKS = Number(process.env.BENCH_WEBHOOKS ?? 20_000);
const CONNECTIONS = 50;
const STEADY_SECONDS = 20;
const LOAD_SCRIPT = join(import.meta.dirname, 'receiver-load.ts');
/** A Standard Webhooks secret the sink does not check (it only counts). */
const OUTBOUND_SECRET = `whsec_${Buffer.from('drain-bench-outbound-secret-0123').toString('base64')}`;

export interface DrainResult {
  accepted: number;
  acceptPerSecond: number;
  deliveredAtLoadEnd: number;
  secondsToDrain: number;
  drainPerSecond: number;
  steadyRate: number;
  backlog: number[];
}

interface Sink {
  server: Server;
  url: string;
  count: () => number;
}

async function startSink(): Promise<Sink> {
  let count = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      count += 1;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"id":"ok"}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/in`, count: () => count };
}

const backlogOf = async (gateway: Gateway) => {
  const row = await gateway.store.read.sql.get<{ n: number }>(`select count(*) as n from jobs where kind = 'connector.deliver' and status in ('queued', 'running')`);
  return Number(row?.n ?? 0);
};

export async function benchDrain(): Promise<DrainResult> {
  const dir = mkdtempSync(join(tmpdir(), 'tg-bench-drain-'));
  const sandbox = await startSandbox({ port: 0 });
  const sink = await startSink();
  let gateway: Gateway | undefined;
  try {
    gateway = await startBenchGateway(dir, sandbox, [
      { name: 'hook', type: 'webhook', room_id: sandbox.roomId, allow_unsigned: true, outbound_url: sink.url, outbound_secret: OUTBOUND_SECRET },
    ]);
    const registration = await gateway.store.read.registrations.get('hook');
    if (!registration) throw new Error('the webhook connector was not registered with the sandbox');
    const load = (env: Record<string, string>, seconds: number) =>
      spawnJson<LoadOutput>(
        LOAD_SCRIPT,
        [`${gateway!.url}/webhooks/hook`, registration.secret, registration.configId, sandbox.roomId, String(CONNECTIONS), String(seconds), '0'],
        { LOAD_CHANNEL: 'webhook', ...env },
      );

    // Phase 1: a burst of WEBHOOKS, then the drain.
    const burst = await load({ LOAD_AMOUNT: String(WEBHOOKS) }, 0);
    const loadEnded = performance.now();
    const accepted = burst.measured.ok2xx;
    const deliveredAtLoadEnd = sink.count();
    while (sink.count() < accepted) {
      if (performance.now() - loadEnded > 300_000) throw new Error(`only ${sink.count()} of ${accepted} delivered after 300 s`);
      await new Promise((r) => setTimeout(r, 10));
    }
    const secondsToDrain = (performance.now() - loadEnded) / 1000;

    // Phase 2: half the accept rate, steadily; the backlog sampled every second.
    const steadyRate = Number(process.env.BENCH_STEADY_RATE ?? 0) || Math.max(1, Math.round(burst.measured.requestsPerSecond / 2));
    const backlog: number[] = [];
    const sampler = setInterval(() => void backlogOf(gateway!).then((n) => backlog.push(n)), 1_000);
    await load({ LOAD_RATE: String(steadyRate) }, STEADY_SECONDS);
    clearInterval(sampler);
    return {
      accepted,
      acceptPerSecond: burst.measured.requestsPerSecond,
      deliveredAtLoadEnd,
      secondsToDrain,
      drainPerSecond: (accepted - deliveredAtLoadEnd) / secondsToDrain,
      steadyRate,
      backlog,
    };
  } finally {
    await gateway?.close();
    await new Promise((r) => sink.server.close(r));
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export function reportDrain(r: DrainResult): void {
  const fmt = (n: number, d = 0) => n.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });
  console.log('| drain | value |');
  console.log('|---|---:|');
  console.log(`| webhooks accepted (50 connections, as fast as they go) | ${fmt(r.accepted)} |`);
  console.log(`| accept rate | ${fmt(r.acceptPerSecond)}/s |`);
  console.log(`| delivered to the sink when the load ended | ${fmt(r.deliveredAtLoadEnd)} |`);
  console.log(`| seconds from the load's end until all were delivered | ${fmt(r.secondsToDrain, 2)} (target ≤ 10) |`);
  console.log(`| delivery rate after the load | ${fmt(r.drainPerSecond)}/s |`);
  console.log(`| backlog each second at a steady ${fmt(r.steadyRate)}/s (half the accept rate) | ${r.backlog.join(', ')} |`);
}

if (import.meta.main) reportDrain(await benchDrain());
