/**
 * A plain GET load in its own process for `npm run bench:proxy`:
 *   node bench/get-load.ts <url> <headers-json> [connections=10] [seconds=10] [warmup_seconds=2]
 * Prints one JSON summary of the measured run: requests/s (mean of
 * autocannon's per-second samples), non-2xx, errors, and p50/p99 of 2xx
 * latencies recorded here in µs from autocannon's per-response times.
 */
import { createRequire } from 'node:module';
import { createHistogram } from 'node:perf_hooks';

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
}

async function main(): Promise<void> {
  const [url, headersJson = '{}', connections = '10', seconds = '10', warmup = '2'] = process.argv.slice(2);
  if (!url) {
    console.error('usage: node bench/get-load.ts <url> <headers-json> [connections] [seconds] [warmup_seconds]');
    process.exit(2);
  }
  const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;
  const headers = JSON.parse(headersJson) as Record<string, string>;
  const run = async (duration: number): Promise<GetLoadSummary> => {
    const latency = createHistogram();
    const running = autocannon({ url, connections: Number(connections), duration, headers });
    running.on('response', (_c, status, _b, responseTime) => {
      if (status >= 200 && status <= 299) latency.record(Math.max(1, Math.round(responseTime * 1000)));
    });
    const r = await running;
    return {
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
