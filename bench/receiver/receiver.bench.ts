/**
 * `npm run bench:receiver`: HTTP throughput of the webhook receiver, measured
 * with autocannon in a second process (bench/receiver/receiver-load.ts), against
 *   (a) a bare Fastify 5 app with one `POST /` answering `{ ok: true }`, and
 *   (b) a real gateway (startGateway, settings from a YAML file) pointed at a
 *       real sandbox, its no-op connector's registration secret signing
 *       distinct `message_created` webhooks to `POST /webhooks/bench`, with
 *       the store on `synchronous=full` (the default) and `normal`.
 * After each (b) run the `deliveries` table is checked against the 2xx
 * answers; the process exits 1 when they disagree.
 *
 * CPU: the servers (bare app, gateway, and for (b) the in-process sandbox)
 * run in this process; the load process reads this process's CPU time (user +
 * system, all threads, /proc/<pid>/stat) and its own over the measured run,
 * and the tables give both per answered request. For (b) the gateway is then
 * left to deliver its backlog, and this process's CPU from the warm-up's start
 * to the last delivery, per stored webhook, is what accepting AND delivering
 * one costs.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import type { RunningGateway } from '../../src/cli/gateway.ts';
import { startSandbox } from '../../src/sandbox/index.ts';
import { countDeliveriesByStatus } from '../../src/store/status-counts.ts';
import { startBenchGateway } from '../support/bench-gateway.ts';
import { holdDeliveries } from '../support/noop-connector.ts';
import { cpuNow } from '../support/measure.ts';
import { openFloorJobStore } from './floor-job-store.ts';
import { platformWebhooks, startReceiverFloor } from './receiver-floor.ts';
import {
  endToEndSince,
  fmt,
  printReceiverBudget,
  printReceiverNotes,
  printReceiverTables,
  type CaseResult,
} from './receiver-report.ts';
import type { LoadOutput } from './receiver-load.ts';
import { spawnJson } from '../support/spawn-json.ts';

/** 50 connections, as the measurement; BENCH_CONNECTIONS overrides. */
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
/**
 * The cases to run (BENCH_CASES=full for a CPU profile of the gateway alone). `held`: `full` with every delivery
 * held until the load ends, the gateway accepting alone (its maximum accept rate, with nothing delivered beside).
 * `floor-jobs`: the floor delivering through a durable job queue as it accepts (bench/receiver/floor-job-store.ts).
 */
const CASES = new Set((process.env.BENCH_CASES ?? 'bare,floor,floor-jobs,full,normal,held,steady').split(','));
const SYNC_MODES = (['full', 'normal'] as const).filter((mode) => CASES.has(mode));
/**
 * BENCH_HISTORY=N: N delivered webhooks (and their finished jobs) stored before the load, as in a gateway that has
 * run for a while (its retention keeps days of them); 0 by default, an empty store.
 */
const HISTORY = Number(process.env.BENCH_HISTORY ?? 0);
const SECONDS = 10;
const WARMUP_SECONDS = 2;
const CONNECTOR = 'bench';
const LOAD_SCRIPT = join(import.meta.dirname, 'receiver-load.ts');
const NOOP_MODULE = join(import.meta.dirname, '../support/noop-connector.ts');


/** Waits until the runner delivered every stored webhook (none left `accepted`), at most `limitMs`; the seconds waited. */
async function drained(store: { read: { sql: { get<T>(sql: string, params?: unknown[]): Promise<T | undefined> } } }, limitMs = 120_000): Promise<number> {
  const start = performance.now();
  while (performance.now() - start < limitMs) {
    // Whether one is left, not how many: a count of tens of thousands each poll would take the gateway's CPU.
    const left = await store.read.sql.get<{ one: number }>(`select 1 as one from deliveries where status = 'accepted' limit 1`);
    if (left === undefined) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  return (performance.now() - start) / 1000;
}

/** `count` delivered webhooks of the bench's connector with their done jobs, random event ids and threads, in writes of 10,000. */
async function storeHistory(store: RunningGateway['store'], count: number): Promise<void> {
  const body = JSON.stringify({ event_type: 'message_created', text: 'x'.repeat(600) });
  for (let done = 0; done < count; done += 10_000) {
    await store.write(async (tx) => {
      const n = Math.min(10_000, count - done);
      const now = Date.now();
      await tx.sql.run(
        `with recursive k(i) as (select 1 union all select i + 1 from k where i < ?)
         insert into jobs (kind, payload, status, attempts, max_attempts, run_at, created_at, updated_at, finished_at, order_key)
         select 'connector.deliver', '{}', 'done', 1, 10, ?, ?, ?, ?, 'deliver:${CONNECTOR}:' || lower(hex(randomblob(8))) from k`,
        [n, now, now, now, now],
      );
      await tx.sql.run(
        `with recursive k(i) as (select 1 union all select i + 1 from k where i < ?)
         insert into deliveries (connector, event_type, dedup_key, event_at, thread_id, chat_id, body, headers, verification, status, received_at, updated_at)
         select '${CONNECTOR}', 'message_created', lower(hex(randomblob(16))), strftime('%Y-%m-%dT%H:%M:%fZ', (? + i) / 1000.0, 'unixepoch'),
           lower(hex(randomblob(8))), 'chat', ?, '{}', 'valid', 'delivered', ?, ? from k`,
        // Events of the day before, in time order, as the platform sent them.
        [n, now - 86_400_000 + done, body, now, now],
      );
    });
  }
}

/** A steady load for latency: this many requests a second (the p99 target is at 1,000/s). */
const STEADY_RATE = Number(process.env.BENCH_STEADY_RATE ?? 1_000);

function runLoad(url: string, secret: string, configId: string, roomId: string, env: Record<string, string>): Promise<LoadOutput> {
  return spawnJson<LoadOutput>(LOAD_SCRIPT, [url, secret, configId, roomId, String(CONNECTIONS), String(SECONDS), String(WARMUP_SECONDS)], env);
}

async function bareFastify(env: Record<string, string> = {}, label = ''): Promise<CaseResult> {
  const app = Fastify();
  app.post('/', async () => ({ ok: true }));
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  try {
    // The same signed envelopes as (b); the bare app parses them as JSON and ignores the rest.
    const out = await runLoad(`${url}/`, 'x'.repeat(64), randomUUID(), randomUUID(), env);
    return { name: `bare Fastify \`POST /\`${label}`, load: out.measured };
  } finally {
    await app.close();
  }
}

/**
 * The receiver's floor (bench/receiver/receiver-floor.ts): the same load against the least a durable receiver does;
 * `jobs`, its deliveries through a durable job queue (bench/receiver/floor-job-store.ts).
 */
async function receiverFloor(variant: 'one thread' | 'jobs' = 'one thread'): Promise<{ result: CaseResult; ok: boolean }> {
  const dir = mkdtempSync(join(tmpdir(), 'tg-bench-floor-'));
  const secret = 'f'.repeat(64);
  const floor = await startReceiverFloor(dir, platformWebhooks(secret), variant === 'jobs' ? openFloorJobStore : undefined);
  try {
    const cpu0 = cpuNow();
    const out = await runLoad(floor.url, secret, randomUUID(), randomUUID(), {});
    const drainStart = performance.now();
    await floor.drained();
    const drainSeconds = (performance.now() - drainStart) / 1000;
    const { stored, delivered, groups } = floor.counts();
    const answered2xx = out.warmup.ok2xx + out.measured.ok2xx;
    const ok = out.ackedDeliveryIds.length === answered2xx && stored >= answered2xx && delivered === stored;
    const check = `2xx answers (warm-up + measured): ${answered2xx}; rows stored: ${stored}, delivered: ${delivered}, in ${groups} groups -> ${ok ? 'OK' : 'MISMATCH'}`;
    const endToEnd = endToEndSince(cpu0, drainSeconds, delivered);
    const name = {
      'one thread': 'floor: Fastify + HMAC + JSON + two grouped synced writes (bench/receiver/receiver-floor.ts)',
      jobs: 'floor delivering through a job queue (bench/receiver/floor-job-store.ts)',
    }[variant];
    return { result: { name, load: out.measured, check, endToEnd }, ok };
  } finally {
    await floor.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function gatewayReceiver(
  synchronous: 'full' | 'normal',
  env: Record<string, string> = {},
  label = '',
  hold = false,
): Promise<{ result: CaseResult; ok: boolean }> {
  const dir = mkdtempSync(join(tmpdir(), 'tg-bench-receiver-'));
  const sandbox = await startSandbox({ port: 0 });
  try {
    const gateway = await startBenchGateway(dir, sandbox, [{ name: CONNECTOR, type: 'noop', module: NOOP_MODULE, room_id: sandbox.roomId }], { synchronous });
    if (HISTORY > 0) await storeHistory(gateway.store, HISTORY);
    const release = hold ? holdDeliveries() : () => {};
    try {
      const registration = (await gateway.store.read.registrations.get(CONNECTOR));
      if (!registration) throw new Error(`connector ${CONNECTOR} was not registered with the sandbox`);
      const cpu0 = cpuNow();
      const out = await runLoad(`${gateway.url}/webhooks/${CONNECTOR}`, registration.secret, registration.configId, sandbox.roomId, env);

      // Every 2xx answer must be a stored delivery, and nothing else may have been stored.
      const byStatus = await countDeliveriesByStatus(gateway.store.read.sql);
      byStatus.delivered -= HISTORY; // what the history stored before the load
      const stored = (byStatus.accepted ?? 0) + (byStatus.delivered ?? 0);
      const acked = out.ackedDeliveryIds;
      const matched = (await gateway.store.read.sql.get<{ n: number }>(
        `select count(*) as n from deliveries where status in ('accepted', 'delivered') and id in (select value from json_each(?))`,
        [JSON.stringify(acked)],
      ))!.n;
      const answered2xx = out.warmup.ok2xx + out.measured.ok2xx;
      const cutOff = out.warmup.sent - out.warmup.completed + (out.measured.sent - out.measured.completed);
      const others = Object.entries(byStatus).filter(([s, n]) => s !== 'accepted' && s !== 'delivered' && n > 0);
      const ok =
        acked.length === answered2xx &&
        new Set(acked).size === acked.length &&
        matched === answered2xx &&
        stored >= answered2xx &&
        stored - answered2xx <= cutOff &&
        others.length === 0;
      const check =
        `2xx answers (warm-up + measured): ${answered2xx}; deliveries accepted/delivered: ${stored} ` +
        `(${byStatus.delivered ?? 0} delivered, ${byStatus.accepted ?? 0} still accepted); ` +
        `2xx delivery_ids found accepted/delivered: ${matched}; ` +
        `stored without a counted answer: ${stored - answered2xx} (requests in flight when autocannon stopped: ${cutOff}); ` +
        `other statuses: ${others.length === 0 ? 'none' : JSON.stringify(Object.fromEntries(others))} -> ${ok ? 'OK' : 'MISMATCH'}`;
      release();
      const drainSeconds = await drained(gateway.store);
      const delivered = Number((await countDeliveriesByStatus(gateway.store.read.sql)).delivered ?? 0) - HISTORY;
      const endToEnd = endToEndSince(cpu0, drainSeconds, delivered);
      return { result: { name: `gateway \`POST /webhooks/:connector\` (synchronous=${synchronous})${label}`, load: out.measured, check, endToEnd }, ok };
    } finally {
      release();
      await gateway.close();
    }
  } finally {
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs every case and prints the tables; false when a check of the store against the 2xx answers failed. */
export async function benchReceiver(): Promise<boolean> {
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  console.log(`node ${process.version}, ${cpus().length} × ${cpu}, ${Math.round(totalmem() / 2 ** 30)} GiB`);
  console.log(`autocannon in a child process: ${CONNECTIONS} connections, ${WARMUP_SECONDS} s warm-up, ${SECONDS} s measured per case\n`);

  const results: CaseResult[] = [];
  let allOk = true;
  const bare: CaseResult[] = [];
  if (CASES.has('bare')) bare.push(await bareFastify(undefined, ', before the other cases'));
  results.push(...bare);
  let floorResult: CaseResult | undefined;
  if (CASES.has('floor')) {
    const { result, ok } = await receiverFloor();
    results.push((floorResult = result));
    allOk &&= ok;
  }
  let floorJobsResult: CaseResult | undefined;
  if (CASES.has('floor-jobs')) {
    const { result, ok } = await receiverFloor('jobs');
    results.push((floorJobsResult = result));
    allOk &&= ok;
  }
  let fullResult: CaseResult | undefined;
  for (const synchronous of SYNC_MODES) {
    const { result, ok } = await gatewayReceiver(synchronous);
    results.push(result);
    if (synchronous === 'full') fullResult = result;
    allOk &&= ok;
  }
  let heldResult: CaseResult | undefined;
  if (CASES.has('held')) {
    const { result, ok } = await gatewayReceiver('full', {}, ', deliveries held during the load', true);
    results.push((heldResult = result));
    allOk &&= ok;
  }
  // The reference again: on a shared machine one slow moment makes a flattering ratio. The faster of the two counts.
  if (CASES.has('bare') && results.length > 1) {
    const after = await bareFastify(undefined, ', after them');
    bare.push(after);
    results.push(after);
  }
  const steady = { LOAD_RATE: String(STEADY_RATE) };
  const steadyLabel = `, steady ${fmt(STEADY_RATE)}/s`;
  const steadyResults: CaseResult[] = [];
  if (CASES.has('steady')) {
    steadyResults.push(await bareFastify(steady, steadyLabel));
    const { result, ok } = await gatewayReceiver('full', steady, steadyLabel);
    steadyResults.push(result);
    allOk &&= ok;
  }

  const base = bare.length > 0 ? Math.max(...bare.map((b) => b.load.requestsPerSecond)) : Number.NaN;
  printReceiverTables(results, steadyResults, base, bare);
  if (!Number.isNaN(base)) printReceiverBudget(base, { floor: floorResult, floorJobs: floorJobsResult, full: fullResult, held: heldResult });
  printReceiverNotes(results, steadyResults);
  if (!allOk) console.error('\nverification failed: the deliveries table does not match the 2xx answers');
  return allOk;
}

if (import.meta.main && !(await benchReceiver())) process.exitCode = 1;
