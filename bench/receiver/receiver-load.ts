/**
 * The load side of `npm run bench:receiver`, run as its own process so the
 * client never shares an event loop with the server it measures:
 *
 *   node bench/receiver/receiver-load.ts <url> <secret> <channel_config_id> <room_id> [connections=10] [seconds=10] [warmup_seconds=2]
 *
 * LOAD_KIND=connector sends a webhook connector's inbound messages instead,
 * signed the Standard Webhooks way with <secret> (a `whsec_…`).
 * LOAD_AMOUNT=N sends exactly N requests instead (no warm-up); LOAD_RATE=R
 * sends a steady R requests a second, one every 1/R s (bench/receiver/paced-load.ts,
 * for latency; LOAD_PACER=autocannon uses autocannon's `overallRate` instead,
 * which sends each second's requests in a burst at its start).
 *
 * CPU: each summary holds the CPU time (user + system, all threads) that the
 * server process (LOAD_SERVER_PID, else this process's parent: the benchmarks
 * run their servers in-process) and this load process used during that run.
 *
 * Every request is a distinct `message_created` envelope (fresh message.id,
 * the field set of src/sandbox/webhook-envelopes.ts) signed with a fresh
 * timestamp, built by autocannon's `setupRequest`. Prints one JSON object on
 * stdout: the warm-up and measured summaries, and the `delivery_id` of every
 * 2xx answer that carried one (the gateway's receiver does, a bare app not).
 */
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { createHistogram, type RecordableHistogram } from 'node:perf_hooks';
import { Webhook } from 'standardwebhooks';
import { signWebhook, SIGNATURE_HEADER, TIMESTAMP_HEADER } from '../../src/platform/signature.ts';
import { messageCreatedEnvelope } from '../../test/support/events.ts';
import { cpuDuring, type ServerCpu } from '../support/measure.ts';
import { pacedRun } from './paced-load.ts';

// autocannon ships no types: the part of its API used here.
interface AutocannonRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  setupRequest?: (request: AutocannonRequest, context: Record<string, unknown>) => AutocannonRequest;
  onResponse?: (status: number, body: string, context: Record<string, unknown>) => void;
}
interface Histogram {
  average: number;
  p50: number;
  p99: number;
  max: number;
  total: number;
  sent?: number;
}
interface AutocannonResult {
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  '2xx': number;
  statusCodeStats: Record<string, { count: number }>;
  latency: Histogram;
  requests: Histogram;
}
interface AutocannonRun extends Promise<AutocannonResult> {
  /** Emitted per answer; `responseTime` is in fractional ms (autocannon's own histogram keeps whole ms). */
  on(event: 'response', listener: (client: unknown, status: number, bytes: number, responseTime: number) => void): this;
}
type Autocannon = (opts: {
  url: string;
  connections: number;
  duration?: number;
  amount?: number;
  overallRate?: number;
  method: string;
  requests: AutocannonRequest[];
}) => AutocannonRun;

export interface LoadSummary {
  seconds: number;
  /** Mean of autocannon's per-second samples. */
  requestsPerSecond: number;
  ok2xx: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  /** Of 2xx answers, from autocannon's per-response times recorded here in µs. */
  latencyMs: { p50: number; p99: number; average: number; max: number };
  /** autocannon's own p50/p99 (whole milliseconds). */
  autocannonLatencyMs: { p50: number; p99: number };
  /** Requests written / answers counted; the difference was in flight when autocannon stopped. */
  sent: number;
  completed: number;
  /** CPU time during the run, µs (user + system): the server process's (all its threads; its main thread) and this load process's. */
  cpu?: ServerCpu;
  /** The paced generator's lag behind each request's due time (LOAD_RATE only), ms. */
  sendLagMs?: { p50: number; p99: number; max: number };
}

export interface LoadOutput {
  warmup: LoadSummary;
  measured: LoadSummary;
  ackedDeliveryIds: number[];
}

const THREADS = 64;
/** Runs `work`, adding the server's and this process's CPU time during it to its summary (a paced run measures its own). */
async function withCpu<T extends LoadSummary>(serverPid: number, work: () => Promise<T>): Promise<T> {
  const { value, ...cpu } = await cpuDuring(serverPid, work);
  return { ...value, cpu: value.cpu ?? cpu };
}

function summarize(r: AutocannonResult, latency: RecordableHistogram): LoadSummary {
  const ms = (micros: number) => micros / 1000;
  const statusCodes: Record<string, number> = {};
  for (const [code, s] of Object.entries(r.statusCodeStats)) statusCodes[code] = Number(s.count);
  return {
    seconds: r.duration,
    requestsPerSecond: r.requests.average,
    ok2xx: r['2xx'],
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    statusCodes,
    latencyMs: { p50: ms(latency.percentile(50)), p99: ms(latency.percentile(99)), average: ms(latency.mean), max: ms(latency.max) },
    autocannonLatencyMs: { p50: r.latency.p50, p99: r.latency.p99 },
    sent: r.requests.sent ?? 0,
    completed: r.requests.total,
  };
}

function emptySummary(): LoadSummary {
  const zero = { p50: 0, p99: 0, average: 0, max: 0 };
  return { seconds: 0, requestsPerSecond: 0, ok2xx: 0, non2xx: 0, errors: 0, timeouts: 0, statusCodes: {}, latencyMs: zero, autocannonLatencyMs: { p50: 0, p99: 0 }, sent: 0, completed: 0 };
}

async function main(): Promise<void> {
  const [url, secret, channelConfigId, roomId, connections = '10', seconds = '10', warmupSeconds = '2'] = process.argv.slice(2);
  if (!url || !secret || !channelConfigId || !roomId) {
    console.error('usage: node bench/receiver/receiver-load.ts <url> <secret> <channel_config_id> <room_id> [connections] [seconds] [warmup_seconds]');
    process.exit(2);
  }
  const agentId = randomUUID();
  // A pool of conversations, as a gateway with many open threads sees them.
  const threads = Array.from({ length: THREADS }, (_, i) => ({ threadId: `bench-thread-${i}`, chatId: randomUUID() }));
  let seq = 0;

  const envelope = (): string => {
    const thread = threads[seq++ % THREADS] as (typeof threads)[number];
    const event = messageCreatedEnvelope({
      threadId: thread.threadId,
      chatId: thread.chatId,
      roomId,
      configId: channelConfigId,
      messagingChannel: process.env.LOAD_CHANNEL ?? 'noop',
      senderId: agentId,
      senderName: 'Alex Agent',
      text: `Thanks for writing in, we are looking into it (reply ${seq}).`,
    });
    return JSON.stringify(event);
  };

  // LOAD_KIND=connector: a webhook connector's inbound message (Standard Webhooks signed) instead of a platform webhook.
  const connectorKind = process.env.LOAD_KIND === 'connector';
  const standard = connectorKind ? new Webhook(secret) : undefined;
  const inboundMessage = (): string => {
    const thread = threads[seq++ % THREADS] as (typeof threads)[number];
    const messageId = `bench-${randomUUID()}`;
    return JSON.stringify({ thread_id: thread.threadId, messages: [{ message_id: messageId, sender_id: 'customer@example.test', body: `Hello, my order ${seq} has not arrived yet.` }] });
  };
  const signed = (body: string): Record<string, string> => {
    if (standard) {
      const id = `msg_${randomUUID()}`;
      const at = new Date();
      return { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': standard.sign(id, at, body) };
    }
    const timestamp = Math.floor(Date.now() / 1000);
    return { [SIGNATURE_HEADER]: signWebhook(secret, body, timestamp), [TIMESTAMP_HEADER]: String(timestamp) };
  };

  const ackedDeliveryIds: number[] = [];
  const path = new URL(url).pathname;
  const request: AutocannonRequest = {
    method: 'POST',
    path,
    setupRequest: (req) => {
      const body = connectorKind ? inboundMessage() : envelope();
      return { ...req, method: 'POST', path, body, headers: { 'content-type': 'application/json', ...signed(body) } };
    },
    onResponse: (status, body) => {
      if (status < 200 || status > 299) return;
      const id = (JSON.parse(body) as { delivery_id?: unknown }).delivery_id;
      if (typeof id === 'number') ackedDeliveryIds.push(id);
    },
  };

  const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;
  // LOAD_AMOUNT: exactly that many requests, as fast as they go; LOAD_RATE: at most that many a second.
  const amount = Number(process.env.LOAD_AMOUNT ?? 0);
  const rate = Number(process.env.LOAD_RATE ?? 0);
  const serverPid = Number(process.env.LOAD_SERVER_PID ?? process.ppid);
  const paced = rate > 0 && process.env.LOAD_PACER !== 'autocannon';
  const onOk = request.onResponse as (status: number, body: string) => void;
  const next = () => {
    const r = (request.setupRequest as NonNullable<AutocannonRequest['setupRequest']>)({}, {});
    return { body: r.body as string, headers: r.headers as Record<string, string> };
  };
  const run = (duration: number): Promise<LoadSummary> =>
    withCpu(serverPid, () =>
      paced ? pacedRun({ url, connections: Number(connections), rate, seconds: duration, amount, next, onOk, serverPid }) : autocannonRun(duration),
    );
  const autocannonRun = async (duration: number): Promise<LoadSummary> => {
    const latency = createHistogram();
    const limits = { ...(amount > 0 ? { amount } : { duration }), ...(rate > 0 ? { overallRate: rate } : {}) };
    const running = autocannon({ url, connections: Number(connections), ...limits, method: 'POST', requests: [request] });
    running.on('response', (_client, status, _bytes, responseTime) => {
      if (status >= 200 && status <= 299) latency.record(Math.max(1, Math.round(responseTime * 1000)));
    });
    return summarize(await running, latency);
  };
  const warmup = amount > 0 || Number(warmupSeconds) === 0 ? emptySummary() : await run(Number(warmupSeconds));
  const measured = await run(Number(seconds));
  const output: LoadOutput = { warmup, measured, ackedDeliveryIds };
  process.stdout.write(`${JSON.stringify(output)}\n`);
}

await main();
