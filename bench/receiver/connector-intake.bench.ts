/**
 * `npm run bench:connector-intake`: the webhook connector's inbound intake
 * (`POST /connectors/<name>/messages`, Standard Webhooks signed, one message a
 * request, stored with its platform job through the group commit before the
 * 202) against a bare Fastify 5 route parsing the same JSON, with the same
 * load generator (autocannon in a child process, 50 connections). The
 * platform the gateway posts the messages on to is a sandbox in its own
 * process, so only the gateway's work shares the gateway's event loop.
 * CPU per request: the gateway (or bare app) runs in this process, whose CPU
 * time (all threads; the child sandbox not included) and the load process's
 * the load process reads over the measured run (bench/receiver/receiver-load.ts).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Fastify from 'fastify';
import { startBenchGateway } from '../support/bench-gateway.ts';
import { loadMicrosNear, printBudget, type BudgetRow } from '../support/budget.ts';
import { cpuColumns, cpuNow, cpuPerUnitSince, processCpuMicros } from '../support/measure.ts';
import { startChildSandbox } from '../support/child-sandbox.ts';
import { startPlatformGate } from './platform-gate.ts';
import { standardWebhooks, startReceiverFloor } from './receiver-floor.ts';
import type { LoadOutput, LoadSummary } from './receiver-load.ts';
import { spawnJson } from '../support/spawn-json.ts';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const SECONDS = 10;
const LOAD_SCRIPT = join(import.meta.dirname, 'receiver-load.ts');
const INBOUND_SECRET = `whsec_${Buffer.from('connector-intake-bench-secret-01').toString('base64')}`;

export interface IntakeCase {
  name: string;
  load: LoadSummary;
  /** The sandbox platform's CPU (its own process, on the same cores) a message, from the warm-up to the last post, µs. */
  platformMicros?: number;
  /**
   * This process's CPU a message from the warm-up to the last one posted (the gateway) or marked (the floor), µs: what
   * a rate kept up without a growing backlog costs; `afterLoadSeconds`: how long after the load the last one came.
   */
  endToEnd?: { processMicros: number; mainThreadMicros: number; afterLoadSeconds: number };
  /** A run of the bare route, the reference. */
  reference?: boolean;
  /** The gateway with its platform posts held during the load (bench/receiver/platform-gate.ts): its 202s alone. */
  held?: { afterReleaseSeconds: number };
}

const run = (url: string) =>
  spawnJson<LoadOutput>(LOAD_SCRIPT, [url, INBOUND_SECRET, randomUUID(), randomUUID(), String(CONNECTIONS), String(SECONDS), '2'], { LOAD_KIND: 'connector' });

async function bare(label: string): Promise<IntakeCase> {
  const app = Fastify();
  app.post('/connectors/hook/messages', async (_req, reply) => reply.status(202).send({ accepted: 1 }));
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  try {
    return { name: `bare Fastify route${label}`, load: (await run(`${url}/connectors/hook/messages`)).measured, reference: true };
  } finally {
    await app.close();
  }
}

/** The floor (bench/receiver/receiver-floor.ts): Standard Webhooks, the JSON, two grouped synced writes; no platform post. */
async function floor(): Promise<IntakeCase> {
  const dir = mkdtempSync(join(tmpdir(), 'tg-bench-intake-floor-'));
  const server = await startReceiverFloor(dir, standardWebhooks(INBOUND_SECRET));
  try {
    const cpu0 = cpuNow();
    const out = await run(server.url);
    const loadEnded = performance.now();
    await server.drained();
    const afterLoadSeconds = (performance.now() - loadEnded) / 1000;
    const { stored, delivered } = server.counts();
    const answered = out.warmup.ok2xx + out.measured.ok2xx;
    if (stored < answered || delivered !== stored) throw new Error(`floor: ${answered} answered 202, ${stored} stored, ${delivered} marked`);
    const endToEnd = { ...cpuPerUnitSince(cpu0, stored), afterLoadSeconds };
    return { name: 'floor: Fastify + Standard Webhooks + JSON + two grouped synced writes, no platform post', load: out.measured, endToEnd };
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The gateway posting to a sandbox in its own process. `hold`: its message posts wait in a gate (bench/receiver/platform-gate.ts)
 * during the load and go on after it, so the load measures the intake accepting alone; its CPU then counts over the
 * load's seconds only (the gate runs in this process).
 */
async function gateway(hold = false): Promise<IntakeCase> {
  const dir = mkdtempSync(join(tmpdir(), 'tg-bench-intake-'));
  const sandbox = await startChildSandbox();
  const gate = hold ? await startPlatformGate(sandbox.url) : undefined;
  try {
    // Held posts wait through the load: the platform's answer may take longer than the default 10 s.
    const platform = gate ? { ...sandbox, url: gate.url, timeoutMs: 60_000 } : sandbox;
    const gw = await startBenchGateway(dir, platform, [{ name: 'hook', type: 'webhook', room_id: sandbox.roomId, inbound_secret: INBOUND_SECRET }]);
    try {
      const platformBefore = processCpuMicros(sandbox.pid);
      const cpu0 = cpuNow();
      gate?.hold();
      const out = await run(`${gw.url}/connectors/hook/messages`);
      const loadEnded = performance.now();
      const count = async (where: string) =>
        Number((await gw.store.read.sql.get<{ n: number }>(`select count(*) as n from inbound_messages where connector = 'hook'${where}`))?.n);
      // Held: the gate held posts, and nothing was posted while it did.
      if (gate && gate.held === 0) throw new Error('the gate held no post: the held case measured nothing held');
      if (gate && (await count(` and status = 'posted'`)) > 0) throw new Error('messages were posted while the gate held the posts');
      const released = performance.now();
      gate?.release();
      const stored = await count('');
      const answered = out.warmup.ok2xx + out.measured.ok2xx;
      if (stored < answered) throw new Error(`${answered} messages answered 202 but only ${stored} stored`);
      const deadline = Date.now() + 120_000;
      while ((await count(` and status = 'posted'`)) < stored) {
        if (Date.now() > deadline) throw new Error(`not every stored message was posted within 120 s of the load`);
        await sleep(20);
      }
      const name = 'gateway `POST /connectors/hook/messages` (synchronous=full)';
      if (gate) return { name: `${name}, platform posts held during the load`, load: out.measured, held: { afterReleaseSeconds: (performance.now() - released) / 1000 } };
      const afterLoadSeconds = (performance.now() - loadEnded) / 1000;
      const endToEnd = { ...cpuPerUnitSince(cpu0, stored), afterLoadSeconds };
      const platformMicros = (processCpuMicros(sandbox.pid) - platformBefore) / stored;
      return { name, load: out.measured, platformMicros, endToEnd };
    } finally {
      await gw.close();
    }
  } finally {
    await gate?.close();
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchConnectorIntake(): Promise<IntakeCase[]> {
  // BENCH_CASES=gateway: the gateway alone (for a CPU profile); `floor`: bench/receiver/receiver-floor.ts; `held`: the gateway
  // with its platform posts held during the load (its accepting alone).
  const cases = new Set((process.env.BENCH_CASES ?? 'bare,floor,gateway,held').split(','));
  const measuring = cases.has('floor') || cases.has('gateway') || cases.has('held');
  // The reference before and after: on a shared machine one slow moment makes a flattering ratio. The faster counts.
  const before = cases.has('bare') ? [await bare(measuring ? ', before the other cases' : '')] : [];
  const measured = [
    ...(cases.has('floor') ? [await floor()] : []),
    ...(cases.has('gateway') ? [await gateway()] : []),
    ...(cases.has('held') ? [await gateway(true)] : []),
  ];
  const after = cases.has('bare') && measuring ? [await bare(', after them')] : [];
  return [...before, ...measured, ...after];
}

/** The faster of the bare route's runs, req/s; NaN without one. */
function reference(cases: IntakeCase[]): number {
  const rates = cases.filter((c) => c.reference).map((c) => c.load.requestsPerSecond);
  return rates.length > 0 ? Math.max(...rates) : Number.NaN;
}

export function reportIntake(cases: IntakeCase[]): void {
  const fmt = (n: number, d = 0) => n.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });
  const base = reference(cases);
  console.log(
    `| webhook connector intake, ${CONNECTIONS} connections | req/s | p50 ms | p99 ms | non-2xx | × bare | server CPU µs/req | server cores | load CPU µs/req | load cores |`,
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const c of cases) {
    const l = c.load;
    console.log(
      `| ${c.name} | ${fmt(l.requestsPerSecond)} | ${fmt(l.latencyMs.p50, 2)} | ${fmt(l.latencyMs.p99, 2)} | ${fmt(l.non2xx + l.errors)} | ` +
        `${c.reference || Number.isNaN(base) ? '—' : fmt(l.requestsPerSecond / base, 3)} | ${cpuColumns(l.cpu, l.completed, l.seconds)} |`,
    );
  }
  console.log('\n× bare: against the faster of the bare route\'s runs.');
  for (const c of cases) {
    if (c.platformMicros !== undefined) console.log(`\nThe sandbox platform the gateway posts to (its own process, the same cores): ${fmt(c.platformMicros, 1)} µs of CPU a message.`);
    if (c.endToEnd) console.log(`${c.name}: the last message ${c.platformMicros === undefined ? 'marked' : 'posted'} ${fmt(c.endToEnd.afterLoadSeconds, 2)} s after the load.`);
    if (c.held) console.log(`${c.name}: every message posted ${fmt(c.held.afterReleaseSeconds, 2)} s after the posts were let go.`);
  }
  printIntakeBudget(cases);
}

/**
 * The intake's target against this run's CPU (bench/support/budget.ts), from the warm-up to the last message posted (the
 * gateway) or marked (the floor, which posts nothing). The others: the load generator a request (in the run nearest
 * the target's rate) and the platform a message posted.
 */
function printIntakeBudget(cases: IntakeCase[]): void {
  const others = cases.filter((c) => !c.reference);
  const gatewayCase = others.find((c) => c.platformMicros !== undefined);
  const rows: BudgetRow[] = others.flatMap((c): BudgetRow[] => {
    if (c.endToEnd) return [{ label: c.name, ...c.endToEnd }];
    const cpu = c.load.cpu;
    // Accepting alone: the load's seconds, its posts held (the platform's share, which it did not use, stays counted).
    if (c.held && cpu && c.load.completed > 0) {
      return [{ label: "gateway, accepting alone (`held`, the load's seconds)", processMicros: cpu.serverMicros / c.load.completed, mainThreadMicros: cpu.serverMainMicros / c.load.completed }];
    }
    return [];
  });
  const rate = reference(cases) / 2;
  if (Number.isNaN(rate) || !gatewayCase || rows.length === 0) return;
  const loadMicros = loadMicrosNear(
    rate,
    others.flatMap((c) => (c.load.cpu && c.load.completed > 0 ? [{ rate: c.load.requestsPerSecond, micros: c.load.cpu.loadMicros / c.load.completed }] : [])),
  );
  if (loadMicros === undefined) return;
  printBudget({
    target: 'the connector intake at 0.5× the bare route',
    unit: 'message',
    rate,
    others: [
      { name: 'the load generator', micros: loadMicros },
      { name: 'the platform', micros: gatewayCase.platformMicros ?? 0 },
    ],
    rows,
  });
}

if (import.meta.main) reportIntake(await benchConnectorIntake());
