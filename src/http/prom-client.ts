/**
 * prom-client, by the sub-paths the gateway uses: its Registry, Counter,
 * Gauge and Histogram, and the default metrics (process, heap, event loop,
 * GC). Its root entry also loads the push gateway client, the cluster
 * aggregator, summaries (tdigest) and, for the CPU counters' exemplars,
 * `@opentelemetry/api` (51 modules): none of which the gateway uses
 * (docs/decisions/footprint.md). The CPU counters are made here, as
 * prom-client makes them without exemplars; the other default metrics are
 * prom-client's own modules. Types are the package's.
 */
import { createRequire } from 'node:module';
import type * as PromClient from 'prom-client';

const require = createRequire(import.meta.url);
const lib = (path: string): unknown => require(`prom-client/lib/${path}.js`);

export const Registry = lib('registry') as typeof PromClient.Registry;
export type Registry = PromClient.Registry;
export const Counter = lib('counter') as typeof PromClient.Counter;
export type Counter<T extends string = string> = PromClient.Counter<T>;
export const Gauge = lib('gauge') as typeof PromClient.Gauge;
export type Gauge<T extends string = string> = PromClient.Gauge<T>;
export const Histogram = lib('histogram') as typeof PromClient.Histogram;
export type Histogram<T extends string = string> = PromClient.Histogram<T>;

/** prom-client's default metrics but the CPU counters, in its order (lib/defaultMetrics.js). */
const DEFAULT_METRICS = [
  'processStartTime',
  'osMemoryHeap',
  'processOpenFileDescriptors',
  'processMaxFileDescriptors',
  'eventLoopLag',
  'processResources',
  'processHandles',
  'processRequests',
  'heapSizeAndUsed',
  'heapSpacesSizeAndUsed',
  'version',
  'gc',
] as const;

type DefaultMetric = (registry: Registry, config: { prefix: string; eventLoopMonitoringPrecision: number }) => void;

/** What `collectDefaultMetrics({ register, prefix })` registers, the same names and help. */
export function collectDefaultMetrics(register: Registry, prefix: string): void {
  cpuCounters(register, prefix);
  const config = { prefix, eventLoopMonitoringPrecision: 10 };
  for (const name of DEFAULT_METRICS) (lib(`metrics/${name}`) as DefaultMetric)(register, config);
}

/** `process_cpu_user_seconds_total`, `…_system_…` and `process_cpu_seconds_total`, read at each scrape. */
function cpuCounters(register: Registry, prefix: string): void {
  let last = process.cpuUsage();
  const user = new Counter({
    name: `${prefix}process_cpu_user_seconds_total`,
    help: 'Total user CPU time spent in seconds.',
    registers: [register],
    // This one metric's `collect` sets all three, as prom-client's does.
    collect() {
      const now = process.cpuUsage();
      const userMicros = now.user - last.user;
      const systemMicros = now.system - last.system;
      last = now;
      user.inc(userMicros / 1e6);
      system.inc(systemMicros / 1e6);
      both.inc((userMicros + systemMicros) / 1e6);
    },
  });
  const system = new Counter({ name: `${prefix}process_cpu_system_seconds_total`, help: 'Total system CPU time spent in seconds.', registers: [register] });
  const both = new Counter({ name: `${prefix}process_cpu_seconds_total`, help: 'Total user and system CPU time spent in seconds.', registers: [register] });
}
