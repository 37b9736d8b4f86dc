/**
 * What `npm run bench:receiver` measures a case by, and how it prints them:
 * the load's table, the steady load's, the receiver's target against the
 * run's CPU (bench/support/budget.ts), and the notes under them.
 */
import { loadMicrosNear, printBudget, type BudgetRow } from '../support/budget.ts';
import { cpuColumns, cpuPerUnitSince, type CpuMark } from '../support/measure.ts';
import type { LoadSummary } from './receiver-load.ts';

export interface CaseResult {
  name: string;
  load: LoadSummary;
  check?: string;
  /** The gateway's and the floor's: from the warm-up's start to the last delivery. */
  endToEnd?: EndToEnd;
}

/** CPU from the warm-up's start to the last delivery, per stored webhook (accepted + delivered): all threads, main thread. */
export interface EndToEnd {
  microsPerWebhook: number;
  mainMicrosPerWebhook: number;
  drainSeconds: number;
  delivered: number;
}

export function endToEndSince(start: CpuMark, drainSeconds: number, delivered: number): EndToEnd {
  const { processMicros, mainThreadMicros } = cpuPerUnitSince(start, delivered);
  return { microsPerWebhook: processMicros, mainMicrosPerWebhook: mainThreadMicros, drainSeconds, delivered };
}

export const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

const CPU_HEADER = 'server CPU µs/req | server cores | load CPU µs/req | load cores | server CPU µs/webhook end to end';
const CPU_ALIGN = '---:|---:|---:|---:|---:';
function cpuCells(r: CaseResult): string {
  const { cpu, completed, seconds } = r.load;
  return `${cpuColumns(cpu, completed, seconds)} | ${r.endToEnd ? fmt(r.endToEnd.microsPerWebhook, 1) : '—'}`;
}

/**
 * The load's table and the steady load's. Ratios are against `base`, the faster of the bare route's runs (`bare`,
 * before and after the other cases), when it ran.
 */
export function printReceiverTables(results: readonly CaseResult[], steadyResults: readonly CaseResult[], base: number, bare: readonly CaseResult[]): void {
  console.log(`| case | req/s | p50 ms | p99 ms | 2xx | non-2xx | errors | b/a req/s | ${CPU_HEADER} |`);
  console.log(`|---|---:|---:|---:|---:|---:|---:|---:|${CPU_ALIGN}|`);
  for (const r of results) {
    const l = r.load;
    console.log(
      `| ${r.name} | ${fmt(l.requestsPerSecond)} | ${fmt(l.latencyMs.p50, 2)} | ${fmt(l.latencyMs.p99, 2)} | ${fmt(l.ok2xx)} | ` +
        `${fmt(l.non2xx)} | ${fmt(l.errors)} | ${bare.includes(r) || Number.isNaN(base) ? '—' : fmt(l.requestsPerSecond / base, 3)} | ${cpuCells(r)} |`,
    );
  }
  console.log('');
  console.log(`| steady load (latency) | req/s | p50 ms | p99 ms | max ms | non-2xx | send lag p99 ms | ${CPU_HEADER} |`);
  console.log(`|---|---:|---:|---:|---:|---:|---:|${CPU_ALIGN}|`);
  for (const r of steadyResults) {
    const l = r.load;
    console.log(
      `| ${r.name} | ${fmt(l.requestsPerSecond)} | ${fmt(l.latencyMs.p50, 2)} | ${fmt(l.latencyMs.p99, 2)} | ${fmt(l.latencyMs.max, 1)} | ` +
        `${fmt(l.non2xx + l.errors)} | ${l.sendLagMs ? fmt(l.sendLagMs.p99, 2) : '—'} | ${cpuCells(r)} |`,
    );
  }
  console.log('');
  console.log(
    'server CPU: this process (servers in-process; for the gateway also its sandbox, job runner, checkpoint worker, thread pool) during the measured run, ' +
      'per answered request; cores = CPU seconds a second. end to end: from the warm-up to the last delivery, per stored webhook (accepted + delivered). ' +
      'b/a: against the faster of the bare route\'s two runs.',
  );
}

/**
 * The receiver's target against this run's figures (bench/support/budget.ts): accepted and delivered (`full` and the floor,
 * from the warm-up to the last delivery: what a rate kept up without a growing backlog costs), and accepted alone
 * (`held`, over the measured load). The load generator's share: its CPU a request in the run nearest the target's rate.
 */
export function printReceiverBudget(bareRate: number, cases: { floor?: CaseResult; floorJobs?: CaseResult; full?: CaseResult; held?: CaseResult }): void {
  const rows: BudgetRow[] = [];
  const { floor, floorJobs, full, held } = cases;
  if (full?.endToEnd) {
    rows.push({ label: 'gateway `full`, accepted and delivered', processMicros: full.endToEnd.microsPerWebhook, mainThreadMicros: full.endToEnd.mainMicrosPerWebhook });
  }
  if (floor?.endToEnd) {
    rows.push({ label: 'floor, accepted and marked delivered', processMicros: floor.endToEnd.microsPerWebhook, mainThreadMicros: floor.endToEnd.mainMicrosPerWebhook });
  }
  if (floorJobs?.endToEnd) {
    rows.push({ label: 'floor with a job queue, accepted and delivered', processMicros: floorJobs.endToEnd.microsPerWebhook, mainThreadMicros: floorJobs.endToEnd.mainMicrosPerWebhook });
  }
  const heldCpu = held?.load.cpu;
  if (held && heldCpu && held.load.completed > 0) {
    const n = held.load.completed;
    rows.push({ label: "gateway, accepting alone (`held`, the load's seconds)", processMicros: heldCpu.serverMicros / n, mainThreadMicros: heldCpu.serverMainMicros / n });
  }
  const rate = bareRate / 2;
  const loadMicros = loadMicrosNear(
    rate,
    [floor, floorJobs, full, held].flatMap((c) => (c?.load.cpu && c.load.completed > 0 ? [{ rate: c.load.requestsPerSecond, micros: c.load.cpu.loadMicros / c.load.completed }] : [])),
  );
  if (rows.length === 0 || loadMicros === undefined) return;
  printBudget({ target: 'the receiver at 0.5× the bare route', unit: 'webhook', rate, others: [{ name: 'the load generator', micros: loadMicros }], rows });
}

/** The drain after each case, the checks of the store against the answers, and each load's status codes and latency. */
export function printReceiverNotes(results: readonly CaseResult[], steadyResults: readonly CaseResult[]): void {
  console.log('');
  for (const r of [...results, ...steadyResults]) {
    if (r.endToEnd) console.log(`${r.name}: ${fmt(r.endToEnd.delivered)} delivered, the last ${fmt(r.endToEnd.drainSeconds, 2)} s after the load stopped`);
  }
  for (const r of [...results, ...steadyResults]) if (r.check) console.log(`${r.name}: ${r.check}`);
  for (const r of results) {
    const codes = Object.entries(r.load.statusCodes).map(([c, n]) => `${c}×${n}`).join(', ');
    console.log(
      `${r.name}: ${fmt(r.load.seconds, 2)} s, status codes ${codes}, latency mean ${fmt(r.load.latencyMs.average, 2)} ms, ` +
        `max ${fmt(r.load.latencyMs.max, 1)} ms (autocannon's whole-ms histogram: p50 ${r.load.autocannonLatencyMs.p50}, p99 ${r.load.autocannonLatencyMs.p99})`,
    );
  }
}
