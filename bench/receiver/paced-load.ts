/**
 * A steady, open-loop load for latency (bench/receiver/receiver-load.ts with
 * LOAD_RATE): request k is due at start + k / rate and is sent then, on
 * whichever of the pool's keep-alive connections is free (undici), whether or
 * not earlier answers came back. Its latency is taken from that due time, so
 * a server (or a generator) that falls behind is charged for the wait
 * (no coordinated omission). The requests are built and signed before the
 * clock starts (a signature's timestamp is good for minutes), so building
 * them neither delays the sending nor counts as the load's CPU in the run.
 *
 * Not autocannon's `overallRate`: that gives each connection rate/connections
 * requests a second, sent back to back at the start of each second, then
 * nothing until the next second: with 50 connections at 1,000/s every
 * second's 1,000 requests arrived within its first ~300 ms at 50 concurrent
 * (measured against a bare Fastify route: 5,108 answers in 5 s, all in the
 * first 300 ms of each second), so its "steady" latencies were those of a
 * saturating burst.
 */
import { createHistogram } from 'node:perf_hooks';
import { Pool } from 'undici';
import { cpuDuring } from '../support/measure.ts';
import type { LoadSummary } from './receiver-load.ts';

export interface PacedRequest {
  body: string;
  headers: Record<string, string>;
}

export interface PacedOptions {
  url: string;
  connections: number;
  /** Requests a second. */
  rate: number;
  /** How long to send (ignored with `amount`). */
  seconds: number;
  /** Exactly this many requests instead. */
  amount?: number;
  /** Builds a request: all of a run's are built (and signed) before its clock starts, so the sending loop only sends. */
  next: () => PacedRequest;
  /** Each 2xx answer's status and body. */
  onOk: (status: number, body: string) => void;
  /** The server process whose CPU time the run reports (`cpu`), from the clock's start to the last answer. */
  serverPid: number;
}

export interface PacedSummary extends LoadSummary {
  /** How late the generator sent, behind each request's due time (its own timer lag), ms. */
  sendLagMs: { p50: number; p99: number; max: number };
}

export async function pacedRun(opts: PacedOptions): Promise<PacedSummary> {
  const url = new URL(opts.url);
  const pool = new Pool(url.origin, { connections: opts.connections, pipelining: 1 });
  const total = opts.amount && opts.amount > 0 ? opts.amount : Math.round(opts.rate * opts.seconds);
  const interval = 1000 / opts.rate;
  const latency = createHistogram();
  const lag = createHistogram();
  const statusCodes: Record<string, number> = {};
  let ok2xx = 0;
  let non2xx = 0;
  let errors = 0;
  let sent = 0;
  let completed = 0;
  const inFlight = new Set<Promise<void>>();

  const prepared = Array.from({ length: total }, () => opts.next());
  const fire = (k: number, due: number) => {
    const { body, headers } = prepared[k] as PacedRequest;
    prepared[k] = undefined as unknown as PacedRequest; // sent: let it go
    lag.record(Math.max(1, Math.round((performance.now() - due) * 1000)));
    sent++;
    const done = pool
      .request({ path: url.pathname, method: 'POST', headers, body })
      .then(async (res) => {
        const text = await res.body.text();
        completed++;
        statusCodes[res.statusCode] = (statusCodes[res.statusCode] ?? 0) + 1;
        if (res.statusCode >= 200 && res.statusCode <= 299) {
          ok2xx++;
          latency.record(Math.max(1, Math.round((performance.now() - due) * 1000)));
          opts.onOk(res.statusCode, text);
        } else non2xx++;
      })
      .catch(() => {
        errors++;
      });
    inFlight.add(done);
    void done.finally(() => inFlight.delete(done));
  };

  const { value: seconds, ...cpu } = await cpuDuring(opts.serverPid, async () => {
    const start = performance.now();
    await new Promise<void>((resolve) => {
      let k = 0;
      const tick = () => {
        const now = performance.now();
        for (; k < total && start + k * interval <= now; k++) fire(k, start + k * interval);
        if (k >= total) return resolve();
        setTimeout(tick, Math.max(0, start + k * interval - performance.now()));
      };
      tick();
    });
    while (inFlight.size > 0) await Promise.all(inFlight);
    return (performance.now() - start) / 1000;
  });
  await pool.close();

  const ms = (micros: number) => micros / 1000;
  const p = (h: typeof latency, q: number) => (h.count > 0 ? ms(h.percentile(q)) : 0);
  return {
    seconds,
    requestsPerSecond: completed / seconds,
    ok2xx,
    non2xx,
    errors,
    timeouts: 0,
    statusCodes,
    latencyMs: { p50: p(latency, 50), p99: p(latency, 99), average: latency.count > 0 ? ms(latency.mean) : 0, max: latency.count > 0 ? ms(latency.max) : 0 },
    // No autocannon here: its whole-ms figures are left at the µs histogram's, rounded.
    autocannonLatencyMs: { p50: Math.round(p(latency, 50)), p99: Math.round(p(latency, 99)) },
    sent,
    completed,
    cpu,
    sendLagMs: { p50: p(lag, 50), p99: p(lag, 99), max: lag.count > 0 ? ms(lag.max) : 0 },
  };
}
