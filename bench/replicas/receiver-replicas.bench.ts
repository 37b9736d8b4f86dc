/**
 * `npm run bench:receiver-replicas`: the webhook receiver on SQLite and on
 * PostgreSQL with one and with two replicas, side by side in one run. Every
 * gateway is a `threadgate serve` child process, started as the image starts
 * it (src/cli/node-flags.ts: its V8 flags and environment), with the noop
 * connector and the store at its defaults (SQLite `synchronous: full`,
 * PostgreSQL `synchronous_commit` on),
 * the platform a sandbox in its own process, PostgreSQL 15 a throwaway
 * cluster (test/support/postgres-server.ts). Load: bench/receiver/receiver-load.ts,
 * distinct signed `message_created` webhooks, BENCH_CONNECTIONS (50) in all —
 * with two replicas one load process per replica with half the connections,
 * as a balancer would spread them; their rates are added. All processes
 * share this machine's cores. After each case the 2xx answers are checked
 * against the deliveries stored, and the deliveries (the noop connector's, by
 * the gateways' job runners) are counted: how many were delivered when the
 * load ended, and how long after it the last one was (waiting up to 60 s).
 * On PostgreSQL the gateways' round trips to the store (`/metrics`,
 * threadgate_store_round_trips_total) are read when the load ended and after
 * the drain, per stored webhook: its intake, then its delivery as well.
 * BENCH_CASES picks cases: sqlite, pg1, pg2 (default: all three); BENCH_WRITE_CONNECTIONS sets
 * `store.write_connections` of the PostgreSQL cases, or with a list (`4,2,1`) runs them once for each value, each
 * round against the same SQLite run; BENCH_PG_STATEMENTS=1
 * lists each PostgreSQL case's statements, its WAL and its updates made in
 * place (delivery-counter.ts). BENCH_ROUNDS
 * (3) runs the cases that many times in turn, each PostgreSQL case against
 * the SQLite run of its own round, and ends with each one's median ratio:
 * one round's ratio moves with the machine, by a few hundredths on a quiet
 * day and by tenths on a busy one (docs/benchmarks.md), so one round alone
 * says little.
 * BENCH_WARMUP_SECONDS (15): the load before each measured window, long
 * enough for V8's optimizing compiler to settle in a freshly started gateway:
 * in the first 9 s of load it took 8–14 % of a gateway's CPU, after 15 s
 * 0–4 % (docs/benchmarks.md, "Receiver on PostgreSQL replicas"). Odd rounds
 * run SQLite first, even rounds PostgreSQL first, so that a machine slowing
 * down or speeding up over a run favours neither store.
 * BENCH_GATEWAY_NODE_ARGS: flags for the gateways' `node` after the image's,
 * such as those NODE_OPTIONS refuses (`--log-deopt --logfile=…`, to see what
 * V8 deoptimizes); BENCH_GATEWAY_STDOUT=1 passes their standard output
 * through (`--trace-opt`, `--trace-deopt`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { GATEWAY_ENV, GATEWAY_NODE_FLAGS } from '../../src/cli/node-flags.ts';
import { openSettingsStore } from '../../src/cli/store-access.ts';
import { loadSettings } from '../../src/config/load.ts';
import { freePort } from '../../test/support/ports.ts';
import { startPostgres } from '../../test/support/postgres-server.ts';
import { startChildSandbox, type ChildSandbox } from '../support/child-sandbox.ts';
import type { LoadOutput } from '../receiver/receiver-load.ts';
import { cpuSince, median, processCpuMicros, processesCpuMicros } from '../support/measure.ts';
import { spawnJson } from '../support/spawn-json.ts';
import { DeliveryCounter, STATEMENT_SETTINGS } from './delivery-counter.ts';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const SECONDS = 10;
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 15);
/** How long after the load the bench waits for the deliveries to catch up. */
const DRAIN_WAIT_S = 60;
const MAIN = join(import.meta.dirname, '../../src/cli/threadgate.js');
const LOAD_SCRIPT = join(import.meta.dirname, '../receiver/receiver-load.ts');
/** Which cases run (BENCH_CASES, comma-separated): sqlite, pg1 (one replica), pg2 (two). */
const CASES = new Set((process.env.BENCH_CASES ?? 'sqlite,pg1,pg2').split(',').map((c) => c.trim()));
/**
 * BENCH_WRITE_CONNECTIONS: `store.write_connections` of the PostgreSQL cases (default: the store's); a list (`4,2,1`)
 * runs each PostgreSQL case once per value in every round, against the same SQLite run, in an order that turns by one
 * each round.
 */
const WRITE_CONNECTIONS: ReadonlyArray<number | undefined> = process.env.BENCH_WRITE_CONNECTIONS === undefined ? [undefined] : process.env.BENCH_WRITE_CONNECTIONS.split(',').map(Number);
/** BENCH_ROUNDS: the cases run this many times in turn, each PostgreSQL case against the SQLite run of its round; with more than one, the median ratio. */
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const NOOP_MODULE = join(import.meta.dirname, '../support/noop-connector.ts');

export interface Replica {
  url: string;
  child: ChildProcess;
}

/** `threadgate serve` on `config` and a free port; resolves once its /readyz answers 200 (store open, channel registered). */
export async function serve(config: string): Promise<Replica> {
  const port = await freePort();
  // Started as deployed (src/cli/node-flags.ts), then the bench's own flags.
  const nodeArgs = [...GATEWAY_NODE_FLAGS, ...(process.env.BENCH_GATEWAY_NODE_ARGS ?? '').split(' ').filter(Boolean)];
  const child = spawn(process.execPath, [...nodeArgs, MAIN, 'serve', '--config', config, '--port', String(port)], {
    stdio: ['ignore', process.env.BENCH_GATEWAY_STDOUT ? 'inherit' : 'ignore', 'inherit'],
    env: { ...process.env, ...GATEWAY_ENV },
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`a gateway exited with ${child.exitCode} before it was ready`);
    if (Date.now() > deadline) throw new Error('a gateway was not ready within 60 s');
    const ready = await fetch(`${url}/readyz`).then((r) => r.status === 200, () => false);
    if (ready) return { url, child };
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function stop(replica: Replica): Promise<void> {
  if (replica.child.exitCode !== null) return;
  const exited = new Promise((r) => replica.child.once('exit', r));
  replica.child.kill('SIGTERM');
  await exited;
}

interface CaseResult {
  name: string;
  perSecond: number;
  p99: number;
  check: string;
  /** Deliveries delivered when the load ended, of those stored. */
  deliveredAtEnd: string;
  /** Seconds after the load until every stored delivery was delivered (or the wait gave up). */
  drained: string;
  /** The store's round trips per stored webhook when the load ended, and after the drain (PostgreSQL). */
  roundTrips: string;
  /** CPU µs per stored webhook from the load's start to the drain's end (its intake and its delivery): the gateways', the PostgreSQL server's. */
  cpu: { gateway: number; postgres: number | undefined };
}

/** The replicas' round trips to the store so far (their /metrics); undefined for SQLite. */
async function roundTrips(replicas: readonly Replica[]): Promise<number | undefined> {
  let total: number | undefined;
  for (const r of replicas) {
    const text = await (await fetch(`${r.url}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith('threadgate_store_round_trips_total'));
    if (line !== undefined) total = (total ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return total;
}

async function runCase(name: string, store: Record<string, unknown>, replicas: number, sandbox: ChildSandbox): Promise<CaseResult> {
  const dir = mkdtempSync(join(tmpdir(), 'tg-bench-replicas-'));
  const config = join(dir, 'threadgate.yaml');
  writeFileSync(
    config,
    stringify({
      platform: { url: sandbox.url, organization_id: sandbox.organizationId, token: sandbox.token },
      // One address for all replicas (the balancer's): nobody here receives the platform's webhooks.
      server: { public_url: 'http://127.0.0.1:9' },
      store: { path: join(dir, 'gateway.db'), ...store },
      log: { level: 'warn' },
      connectors: [{ name: 'bench', type: 'noop', module: NOOP_MODULE, room_id: sandbox.roomId }],
    }),
  );
  const started: Replica[] = [];
  try {
    for (let i = 0; i < replicas; i++) started.push(await serve(config));
    const reader = await openSettingsStore(loadSettings({ path: config }), { migrate: false });
    const counter = await DeliveryCounter.open(reader, store.url as string | undefined);
    try {
      const registration = (await reader.read.registrations.get('bench'))!;
      // Every process of the cluster (postmaster, backends, writers) names postgres on its command line.
      const postgresBefore = processesCpuMicros('postgres');
      const gatewaysBefore = started.map((r) => processCpuMicros(r.child.pid!));
      const outs = await Promise.all(
        started.map((r) =>
          spawnJson<LoadOutput>(LOAD_SCRIPT, [`${r.url}/webhooks/bench`, registration.secret, registration.configId, sandbox.roomId, String(Math.floor(CONNECTIONS / replicas)), String(SECONDS), String(WARMUP_SECONDS)]),
        ),
      );
      const loadEnded = performance.now();
      const tripsAtEnd = await roundTrips(started);
      const delivered = await counter.count(`'delivered'`);
      const answered = outs.reduce((n, o) => n + o.warmup.ok2xx + o.measured.ok2xx, 0);
      const rows = await counter.count(`'accepted', 'delivered'`);
      const ok = rows >= answered;
      let drained = `not within ${DRAIN_WAIT_S} s`;
      for (let left = rows - delivered; performance.now() - loadEnded < DRAIN_WAIT_S * 1000; left = (await counter.undelivered()) ? 1 : 0) {
        if (left === 0) {
          drained = `${fmt((performance.now() - loadEnded) / 1000, 2)} s`;
          break;
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      const gatewayMicros = started.reduce((n, r, i) => n + processCpuMicros(r.child.pid!) - gatewaysBefore[i]!, 0);
      // The bench's own counting is no work of the gateways': its server process is left out.
      const postgresMicros = cpuSince(postgresBefore, processesCpuMicros('postgres')) - counter.serverMicros();
      const tripsAfter = await roundTrips(started);
      const statements = await counter.statements(rows);
      if (statements.length > 0) console.log(`${name}: the server's statements, by time\n${statements.join('\n')}`);
      const perWebhook = (n: number | undefined) => (n === undefined ? '—' : fmt(n / rows, 2));
      return {
        roundTrips: tripsAtEnd === undefined ? '—' : `${perWebhook(tripsAtEnd)} / ${perWebhook(tripsAfter)}`,
        deliveredAtEnd: `${fmt(delivered)} of ${fmt(rows)}`,
        cpu: { gateway: gatewayMicros / rows, postgres: store.url === undefined ? undefined : postgresMicros / rows },
        drained,
        name,
        perSecond: outs.reduce((n, o) => n + o.measured.requestsPerSecond, 0),
        p99: Math.max(...outs.map((o) => o.measured.latencyMs.p99)),
        check: `${answered} answered 2xx, ${rows} stored -> ${ok ? 'OK' : 'MISMATCH'}`,
      };
    } finally {
      await counter.close();
      await reader.close();
    }
  } finally {
    await Promise.all(started.map(stop));
    rmSync(dir, { recursive: true, force: true });
  }
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

export async function benchReceiverReplicas(): Promise<void> {
  console.log(`node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}; ${CONNECTIONS} connections in all, ${SECONDS} s measured per case, ${ROUNDS} round(s)`);
  const sandbox = await startChildSandbox();
  const cluster = await startPostgres(STATEMENT_SETTINGS);
  try {
    const ratios = new Map<string, number[]>();
    for (let round = 1; round <= ROUNDS; round++) {
      const sqlite = CASES.has('sqlite') ? [() => runCase('SQLite, 1 gateway', {}, 1, sandbox)] : [];
      const postgres: Array<() => Promise<CaseResult>> = [];
      const turn = (round - 1) % WRITE_CONNECTIONS.length;
      for (const writes of [...WRITE_CONNECTIONS.slice(turn), ...WRITE_CONNECTIONS.slice(0, turn)]) {
        const pg = (url: string) => ({ url, ...(writes === undefined ? {} : { write_connections: writes }) });
        const named = (name: string) => (WRITE_CONNECTIONS.length > 1 ? `${name}, ${writes} write connections` : name);
        const db = (name: string) => cluster.createDatabase(`${name}_${round}_${writes ?? 'default'}`);
        if (CASES.has('pg1')) postgres.push(async () => runCase(named('PostgreSQL, 1 replica'), pg(await db('one_replica')), 1, sandbox));
        if (CASES.has('pg2')) postgres.push(async () => runCase(named('PostgreSQL, 2 replicas'), pg(await db('two_replicas')), 2, sandbox));
      }
      // SQLite first in odd rounds, last in even ones: a drift of the machine's speed over the run favours neither store.
      const cases = round % 2 === 1 ? [...sqlite, ...postgres] : [...postgres, ...sqlite];
      const results: CaseResult[] = [];
      for (const run of cases) results.push(await run());
      const base = results.find((r) => r.name.startsWith('SQLite'))?.perSecond;
      if (ROUNDS > 1) console.log(`Round ${round} of ${ROUNDS}:`);
      console.log('| store | req/s | p99 ms | × SQLite | delivered when the load ended | all delivered after the load | round trips a webhook: load end / drained | CPU µs a webhook: gateways / PostgreSQL |');
      console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
      for (const r of results) {
        const ratio = base === undefined ? undefined : r.perSecond / base;
        if (ratio !== undefined && !r.name.startsWith('SQLite')) ratios.set(r.name, [...(ratios.get(r.name) ?? []), ratio]);
        console.log(`| ${r.name} | ${fmt(r.perSecond)} | ${fmt(r.p99, 1)} | ${ratio === undefined ? '—' : fmt(ratio, 2)} | ${r.deliveredAtEnd} | ${r.drained} | ${r.roundTrips} | ${fmt(r.cpu.gateway)} / ${r.cpu.postgres === undefined ? '—' : fmt(r.cpu.postgres)} |`);
      }
      for (const r of results) console.log(`${r.name}: ${r.check}`);
    }
    if (ROUNDS > 1) for (const [name, r] of ratios) console.log(`${name}: × SQLite per round ${r.map((x) => fmt(x, 2)).join(', ')}; median ${fmt(median(r), 2)}`);
  } finally {
    await cluster.stop();
    await sandbox.close();
  }
}

if (import.meta.main) await benchReceiverReplicas();
