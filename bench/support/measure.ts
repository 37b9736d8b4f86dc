/** A tiny timing helper for the benchmarks: warm up, then time N runs. */
import { readdirSync, readFileSync } from 'node:fs';
export interface Measured {
  name: string;
  ops: number;
  seconds: number;
  opsPerSecond: number;
  microsPerOp: number;
}

/** The middle value of `xs` (the mean of the two middle ones for an even count). */
export function median(xs: readonly number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function measure(name: string, ops: number, fn: (i: number) => void): Measured {
  for (let i = 0; i < Math.min(1_000, ops); i++) fn(i); // warm-up
  const start = process.hrtime.bigint();
  for (let i = 0; i < ops; i++) fn(i);
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  return { name, ops, seconds, opsPerSecond: ops / seconds, microsPerOp: (seconds * 1e6) / ops };
}

/** `measure` for work that returns a promise: each run awaited before the next. */
export async function measureAsync(name: string, ops: number, fn: (i: number) => Promise<unknown>): Promise<Measured> {
  for (let i = 0; i < Math.min(1_000, ops); i++) await fn(i); // warm-up
  const start = process.hrtime.bigint();
  for (let i = 0; i < ops; i++) await fn(i);
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  return { name, ops, seconds, opsPerSecond: ops / seconds, microsPerOp: (seconds * 1e6) / ops };
}

export function report(rows: Measured[]): void {
  for (const r of rows) {
    console.log(
      `${r.name.padEnd(48)} ${Math.round(r.opsPerSecond).toLocaleString('en-US').padStart(12)} ops/s ` +
        `${r.microsPerOp.toFixed(2).padStart(10)} µs/op  (${r.ops} ops)`,
    );
  }
}

/** /proc/<pid>/stat counts in clock ticks: 100 a second on Linux (getconf CLK_TCK). */
const CLOCK_TICKS = 100;

/** CPU time (utime + stime, all its threads) a process used so far, µs, from /proc/<pid>/stat (10 ms resolution). */
export function processCpuMicros(pid: number): number {
  return statCpuMicros(`/proc/${pid}/stat`);
}

/** CPU time a process's main thread (its thread id is its pid) used so far, µs (10 ms resolution). */
export function mainThreadCpuMicros(pid: number): number {
  return statCpuMicros(`/proc/${pid}/task/${pid}/stat`);
}

function statCpuMicros(file: string): number {
  const stat = readFileSync(file, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // from the 3rd field (state) on
  return ((Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS) * 1e6; // utime and stime, the 14th and 15th
}

/**
 * CPU time so far (µs) of every process whose command line names `word`, by pid: a process gone meanwhile is left
 * out. Dovecot's master runs as `…/dovecot -F -c …` and titles the others after its instance, `dovecot-<instance>/imap`,
 * `dovecot-<instance>/auth`, … (the test suite's mail servers name it `threadgate-<pid>`).
 */
export function processesCpuMicros(word: string): Map<number, number> {
  const out = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(word)) out.set(pid, processCpuMicros(pid));
    } catch {
      // Gone between the listing and the read.
    }
  }
  return out;
}

/** What the processes of `after` used since `before` (µs): one started meanwhile counts from zero. */
export function cpuSince(before: ReadonlyMap<number, number>, after: ReadonlyMap<number, number>): number {
  let micros = 0;
  for (const [pid, used] of after) micros += used - (before.get(pid) ?? 0);
  return micros;
}

/**
 * The CPU columns of a load's table row: the server's and the load generator's µs per answered request, and the
 * cores each used (CPU seconds a second); dashes without a measurement.
 */
export function cpuColumns(cpu: { serverMicros: number; loadMicros: number } | undefined, completed: number, seconds: number): string {
  if (!cpu || completed === 0) return '— | — | — | —';
  const fmt = (n: number, d: number) => n.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });
  const perRequest = (micros: number) => fmt(micros / completed, 1);
  const cores = (micros: number) => fmt(micros / 1e6 / seconds, 2);
  return `${perRequest(cpu.serverMicros)} | ${cores(cpu.serverMicros)} | ${perRequest(cpu.loadMicros)} | ${cores(cpu.loadMicros)}`;
}

/** CPU time used during `work`, µs: the process `pid`'s (all threads, and its main thread alone) and this process's. */
export async function cpuDuring<T>(pid: number, work: () => Promise<T>): Promise<{ value: T } & ServerCpu> {
  const server0 = processCpuMicros(pid);
  const main0 = mainThreadCpuMicros(pid);
  const load0 = process.cpuUsage();
  const value = await work();
  const load = process.cpuUsage(load0);
  return { value, serverMicros: processCpuMicros(pid) - server0, serverMainMicros: mainThreadCpuMicros(pid) - main0, loadMicros: load.user + load.system };
}

/** A load run's CPU, µs: the server process's (all its threads), its main thread's, and the load generator's. */
export interface ServerCpu {
  serverMicros: number;
  serverMainMicros: number;
  loadMicros: number;
}

/** This process's CPU so far: all its threads, and its main thread (where the benchmarks run the servers they measure). */
export interface CpuMark {
  all: NodeJS.CpuUsage;
  main: NodeJS.CpuUsage;
}

export function cpuNow(): CpuMark {
  return { all: process.cpuUsage(), main: process.threadCpuUsage() };
}

/** This process's CPU since `start`, µs a unit of `units`: all its threads, and its main thread. */
export function cpuPerUnitSince(start: CpuMark, units: number): { processMicros: number; mainThreadMicros: number } {
  const all = process.cpuUsage(start.all);
  const main = process.threadCpuUsage(start.main);
  return { processMicros: (all.user + all.system) / units, mainThreadMicros: (main.user + main.system) / units };
}
