/**
 * What a throughput target asks of this machine, printed under a benchmark's
 * table from the same run's figures (docs/benchmarks.md, "The write path,
 * twenty-second increment").
 *
 * At the target's rate each unit (a webhook, a message, a mail) has
 * `cores` / rate seconds of the machine's CPU. The other processes on the
 * machine (the load generator, the platform, the mail server) take what they
 * were measured to take a unit in the same run; the rest is the gateway's. And
 * whatever runs on one thread has one core / rate a unit. A gateway whose
 * measured CPU a unit is above its share cannot reach the target doing that
 * work: its process above the machine's share, its main thread above the
 * thread's. The check is a necessary condition only: a gateway within both
 * may still be slower, for it also waits (on the disk, on its peers).
 */
import { availableParallelism } from 'node:os';

/** One measured way of doing a unit's work. */
export interface BudgetRow {
  label: string;
  /** CPU µs a unit, all the process's threads. */
  processMicros: number;
  /** CPU µs a unit of its main thread. */
  mainThreadMicros: number;
  /** Measured from its first unit's work on (a floor's from its connect), not from its start: also set against the thread's share after `Budget.start`. */
  fromFirstUnit?: boolean;
}

export interface Budget {
  /** The target as the issue words it, e.g. `receiver ≥ 0.5× the bare route`. */
  target: string;
  /** What a unit is: `webhook`, `message`, `mail`. */
  unit: string;
  /** Units a second at the target. */
  rate: number;
  /** µs a unit each other process on the machine took in this run. */
  others: { name: string; micros: number }[];
  rows: BudgetRow[];
  /** The machine's cores (default: what Node.js may use). */
  cores?: number;
  /**
   * When the target counts the gateway's time from its start: the seconds until it had `done` of a run's `units`
   * (its start-up and its first group). One thread then has what is left of the target's time for the other units:
   * what a gateway that starts as this one does has a unit, however little CPU its start-up takes.
   */
  start?: { seconds: number; units: number; done: number };
}

export interface BudgetShares {
  /** The machine's cores. */
  cores: number;
  /** CPU µs a unit of all the cores at the target's rate. */
  machine: number;
  /** The machine's share less the others': the gateway's process's share. */
  gateway: number;
  /** One core's µs a unit: a thread's share. */
  thread: number;
  /** A thread's µs a unit of what the target's time leaves after the start-up (`Budget.start`), when given; negative when nothing is left. */
  threadAfterStart?: number;
}

export function budgetShares(b: Budget): BudgetShares {
  const cores = b.cores ?? availableParallelism();
  const machine = (cores * 1e6) / b.rate;
  const others = b.others.reduce((sum, o) => sum + o.micros, 0);
  const shares: BudgetShares = { cores, machine, gateway: machine - others, thread: 1e6 / b.rate };
  const start = b.start;
  if (start && start.units > start.done) shares.threadAfterStart = ((start.units / b.rate - start.seconds) * 1e6) / (start.units - start.done);
  return shares;
}

/**
 * The load generator's CPU a request, from the run whose rate was nearest `rate`: autocannon spends more a request
 * against a slower server (fewer answers a read), so the run nearest the target's rate says best what it would take
 * there. `runs`: each run's rate and the generator's µs a request.
 */
export function loadMicrosNear(rate: number, runs: readonly { rate: number; micros: number }[]): number | undefined {
  let best: { rate: number; micros: number } | undefined;
  for (const r of runs) if (best === undefined || Math.abs(r.rate - rate) < Math.abs(best.rate - rate)) best = r;
  return best?.micros;
}

const fmt = (n: number, digits = 1) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** `yes`, or `no` with how far over. */
function within(measured: number, share: number): string {
  return measured <= share ? 'yes' : `no, ${fmt(measured - share)} over`;
}

/** The budget's lines: a sentence, then a table of the rows against the two shares. */
export function budgetLines(b: Budget): string[] {
  const s = budgetShares(b);
  const others = b.others.map((o) => `${o.name} ${fmt(o.micros)}`).join(', ');
  const after = s.threadAfterStart;
  const start =
    b.start && after !== undefined
      ? ` Of the ${fmt(b.start.units / b.rate, 2)} s the target gives ${fmt(b.start.units, 0)} ${b.unit}s, the gateway took ${fmt(b.start.seconds, 2)} s ` +
        `to its first ${fmt(b.start.done, 0)}: for each of the others one thread has ${fmt(after)} µs.`
      : '';
  const afterCell = (r: BudgetRow) => (after === undefined ? '' : ` ${r.fromFirstUnit ? within(r.mainThreadMicros, after) : '—'} |`);
  return [
    `What ${b.target} asks of this machine: ${fmt(b.rate, 0)} ${b.unit}s a second, ${fmt(s.machine)} µs of its ${s.cores} cores' CPU a ${b.unit}; ` +
      `${others ? `the others took ${others} µs a ${b.unit}, which leaves the gateway ${fmt(s.gateway)}` : `all of it the gateway's`}; ` +
      `one thread has ${fmt(s.thread)} µs a ${b.unit}.${start}`,
    '',
    `| CPU a ${b.unit}, this run | process µs | within ${fmt(s.gateway)} | main thread µs | within ${fmt(s.thread)} |` +
      (after === undefined ? '' : ` within ${fmt(after)}, after the start |`),
    `|---|---:|---|---:|---|${after === undefined ? '' : '---|'}`,
    ...b.rows.map(
      (r) =>
        `| ${r.label} | ${fmt(r.processMicros)} | ${within(r.processMicros, s.gateway)} | ${fmt(r.mainThreadMicros)} | ${within(r.mainThreadMicros, s.thread)} |` +
        afterCell(r),
    ),
  ];
}

export function printBudget(b: Budget): void {
  console.log(`\n${budgetLines(b).join('\n')}`);
}
