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
 * the load process reads over the measured run (bench/receiver-load.ts).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { startBenchGateway } from './bench-gateway.ts';
import { cpuColumns, processCpuMicros } from './measure.ts';
import { startChildSandbox } from './child-sandbox.ts';
import { standardWebhooks, startReceiverFloor } from './receiver-floor.ts';
import type { LoadOutput, LoadSummary } from './receiver-load.ts';
import { spawnJson } from './spawn-json.ts';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const SECONDS = 10;
const LOAD_SCRIPT = join(import.meta.dirname, 'receiver-load.ts');
const INBOUND_SECRET = `whsec_${Buffer.from('connector-intake-bench-secret-01').toString('base64')}`;

export interface IntakeCase {
  name: string;
  load: LoadSummary;
  /** The sandbox platform's CPU (its own process, on the same cores) a message answered, over warm-up and run, µs. */
  platformMicros?: number;
}

const run = (url: string) =>
  spawnJson<LoadOutput>(LOAD_SCRIPT, [url, INBOUND_SECRET, randomUUID(), randomUUID(), String(CONNECTIONS), String(SECONDS), '2'], { LOAD_KIND: 'connector' });

async function bare(): Promise<IntakeCase> {
  const app = Fastify();
  app.post('/connectors/hook/messages', async (_req, reply) => reply.status(202).send({ accepted: 1 }));
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  try {
    return { name: 'bare Fastify route', load: (await run(`${url}/connectors/hook/messages`)).measured };
  } finally {
    await app.close();
  }
}

/** The floor (bench/receiver-floor.ts): Standard Webhooks, the JSON, two grouped synced writes; no platform post. */
async function floor(): Promise<IntakeCase> {
  const dir = mkdtempSync(join(tmpdir(), 'tg-bench-intake-floor-'));
  const server = await startReceiverFloor(dir, standardWebhooks(INBOUND_SECRET));
  try {
    const out = await run(server.url);
    await server.drained();
    const { stored, delivered } = server.counts();
    const answered = out.warmup.ok2xx + out.measured.ok2xx;
    if (stored < answered || delivered !== stored) throw new Error(`floor: ${answered} answered 202, ${stored} stored, ${delivered} marked`);
    return { name: 'floor: Fastify + Standard Webhooks + JSON + two grouped synced writes, no platform post', load: out.measured };
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function gateway(): Promise<IntakeCase> {
  const dir = mkdtempSync(join(tmpdir(), 'tg-bench-intake-'));
  const sandbox = await startChildSandbox();
  try {
    const gw = await startBenchGateway(dir, sandbox, [{ name: 'hook', type: 'webhook', room_id: sandbox.roomId, inbound_secret: INBOUND_SECRET }]);
    try {
      const platformBefore = processCpuMicros(sandbox.pid);
      const out = await run(`${gw.url}/connectors/hook/messages`);
      const platformMicros = processCpuMicros(sandbox.pid) - platformBefore;
      const stored = await gw.store.read.sql.get<{ n: number }>(`select count(*) as n from inbound_messages where connector = 'hook'`);
      const answered = out.warmup.ok2xx + out.measured.ok2xx;
      if (Number(stored?.n) < answered) throw new Error(`${answered} messages answered 202 but only ${stored?.n} stored`);
      return { name: 'gateway `POST /connectors/hook/messages` (synchronous=full)', load: out.measured, platformMicros: platformMicros / answered };
    } finally {
      await gw.close();
    }
  } finally {
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchConnectorIntake(): Promise<IntakeCase[]> {
  // BENCH_CASES=gateway: the gateway alone (for a CPU profile); `floor`: bench/receiver-floor.ts.
  const cases = new Set((process.env.BENCH_CASES ?? 'bare,floor,gateway').split(','));
  return [
    ...(cases.has('bare') ? [await bare()] : []),
    ...(cases.has('floor') ? [await floor()] : []),
    ...(cases.has('gateway') ? [await gateway()] : []),
  ];
}

export function reportIntake(cases: IntakeCase[]): void {
  const fmt = (n: number, d = 0) => n.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });
  const base = (cases[0] as IntakeCase).load.requestsPerSecond;
  console.log(
    `| webhook connector intake, ${CONNECTIONS} connections | req/s | p50 ms | p99 ms | non-2xx | × bare | server CPU µs/req | server cores | load CPU µs/req | load cores |`,
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const c of cases) {
    const l = c.load;
    console.log(
      `| ${c.name} | ${fmt(l.requestsPerSecond)} | ${fmt(l.latencyMs.p50, 2)} | ${fmt(l.latencyMs.p99, 2)} | ${fmt(l.non2xx + l.errors)} | ` +
        `${fmt(l.requestsPerSecond / base, 3)} | ${cpuColumns(l.cpu, l.completed, l.seconds)} |`,
    );
  }
  for (const c of cases) {
    if (c.platformMicros !== undefined) console.log(`\nThe sandbox platform the gateway posts to (its own process, the same cores): ${fmt(c.platformMicros, 1)} µs of CPU a message.`);
  }
}

if (import.meta.main) reportIntake(await benchConnectorIntake());
