/**
 * A plain GET load in its own process for `npm run bench:proxy`:
 *   node bench/proxy/get-load.ts <url> <headers-json> [connections=10] [seconds=10] [warmup_seconds=2] [pid,pid…]
 * Prints one JSON summary of the measured run: requests/s (mean of
 * autocannon's per-second samples), non-2xx, errors, and p50/p99 of 2xx
 * latencies recorded here in µs from autocannon's per-response times; with
 * process ids, the CPU time (user + system, all threads: /proc/<pid>/stat)
 * each of them and this process used per request during the measured run.
 */
import { createRequire } from 'node:module';
import { createHistogram } from 'node:perf_hooks';
import { processCpuMicros as cpuUs } from '../support/measure.ts';

interface Result {
  errors: number;
  timeouts: number;
  non2xx: number;
  '2xx': number;
  requests: { average: number };
}
interface Run extends Promise<Result> {
  on(event: 'response', listener: (client: unknown, status: number, bytes: number, responseTime: number) => void): this;
}
type Autocannon = (opts: { url: string; connections: number; duration: number; headers: Record<string, string> }) => Run;

export interface GetLoadSummary {
  requestsPerSecond: number;
  ok2xx: number;
  non2xx: number;
  errors: number;
  p50Ms: number;
  p99Ms: number;
  /** CPU µs per answered request of each process id given, in order, during the measured run. */
  cpuUsPerRequest: number[];
  /** CPU µs per answered request of the load generator itself. */
  loadCpuUsPerRequest: number;
}


async function main(): Promise<void> {
  const [url, headersJson = '{}', connections = '10', seconds = '10', warmup = '2', pidList = ''] = process.argv.slice(2);
  const pids = pidList === '' ? [] : pidList.split(',').map(Number);
  if (!url) {
    console.error('usage: node bench/proxy/get-load.ts <url> <headers-json> [connections] [seconds] [warmup_seconds]');
    process.exit(2);
  }
  const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;
  const headers = JSON.parse(headersJson) as Record<string, string>;
  const run = async (duration: number): Promise<GetLoadSummary> => {
    const latency = createHistogram();
    const cpuBefore = pids.map(cpuUs);
    const selfBefore = process.cpuUsage();
    const running = autocannon({ url, connections: Number(connections), duration, headers });
    running.on('response', (_c, status, _b, responseTime) => {
      if (status >= 200 && status <= 299) latency.record(Math.max(1, Math.round(responseTime * 1000)));
    });
    const r = await running;
    const answered = r['2xx'] + r.non2xx;
    const self = process.cpuUsage(selfBefore);
    return {
      cpuUsPerRequest: pids.map((pid, i) => (cpuUs(pid) - cpuBefore[i]!) / answered),
      loadCpuUsPerRequest: (self.user + self.system) / answered,
      requestsPerSecond: r.requests.average,
      ok2xx: r['2xx'],
      non2xx: r.non2xx,
      errors: r.errors + r.timeouts,
      p50Ms: latency.percentile(50) / 1000,
      p99Ms: latency.percentile(99) / 1000,
    };
  };
  await run(Number(warmup));
  process.stdout.write(`${JSON.stringify(await run(Number(seconds)))}\n`);
}

await main();
