/**
 * The e-mail backlog's floor, in a process of its own so that its peak RSS
 * stands beside the gateway's: imapflow + mailparser alone fetching every
 * message's source in a mailbox, a page of UIDs at a time, and parsing it,
 * one after another, as a minimal importer in bounded memory would. Started
 * with the gateway's Node.js flags (email-backlog.bench.ts), so both heaps
 * are sized alike. `node bench/email/email-floor.ts <host> <port> <user>
 * <password> <expected mails>` prints `{ seconds, parsed, peakRssMiB, … }` (the
 * seconds from the connect, the import of both libraries not counted; with
 * the wall clock at its end, so that the benchmark can count them from the
 * spawn as well).
 */
import { readFileSync } from 'node:fs';
import { ImapFlow } from 'imapflow';
import { simpleParser } from 'mailparser';
import { cpuNow, cpuPerUnitSince, type CpuMark } from '../support/measure.ts';

/** Mails downloaded at a time: the gateway's group (connectors/email/mailbox-watcher.ts, DEFAULT_MAX_GROUP_MAILS). */
const PAGE = 100;

export interface FloorResult {
  seconds: number;
  parsed: number;
  peakRssMiB: number;
  /** This process's CPU time over those seconds (all its threads, user + system). */
  cpuSeconds: number;
  /** Its main thread's alone. */
  mainCpuSeconds: number;
  /** The wall clock when it was done (ms since the epoch): the benchmark counts from its spawn with it. */
  endedAtMs: number;
  /** Set by the benchmark: from the spawn (before the process started) until it was done, its start and imports in it. */
  sinceSpawnSeconds?: number;
}

/** The wall clock in ms since the epoch, comparable across processes on one machine. */
export const wallClockMs = () => performance.timeOrigin + performance.now();

/** This process's peak RSS (VmHWM), or another's. */
export function peakRssMiB(pid: number | 'self'): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmHWM:'));
  return Number(line?.replace(/\D+/g, '') ?? 0) / 1024;
}

/** CPU seconds (user + system) since `start`: all threads, and the main thread alone. */
export function cpuSecondsSince(start: CpuMark): { cpuSeconds: number; mainCpuSeconds: number } {
  const used = cpuPerUnitSince(start, 1);
  return { cpuSeconds: used.processMicros / 1e6, mainCpuSeconds: used.mainThreadMicros / 1e6 };
}

/**
 * Every message's source in the open mailbox, in UID order, downloaded a page at a time as the gateway does: one
 * FETCH of the whole mailbox would have imapflow buffer every answer the server sends ahead of the parse.
 */
export async function* sourcesInPages(client: ImapFlow): AsyncGenerator<Buffer> {
  const uids = ((await client.search({ all: true }, { uid: true })) || []).sort((a, b) => a - b);
  for (let i = 0; i < uids.length; i += PAGE) {
    const sources: Buffer[] = [];
    for await (const msg of client.fetch(uids.slice(i, i + PAGE).join(','), { uid: true, source: true }, { uid: true })) {
      if (msg.source) sources.push(msg.source);
    }
    yield* sources;
  }
}

async function floor(host: string, port: number, user: string, pass: string): Promise<FloorResult> {
  const started = performance.now();
  const cpu = cpuNow();
  const client = new ImapFlow({ host, port, secure: false, auth: { user, pass }, logger: false });
  await client.connect();
  let parsed = 0;
  try {
    await client.mailboxOpen('INBOX', { readOnly: true });
    for await (const source of sourcesInPages(client)) {
      const m = await simpleParser(source);
      if (m.messageId) parsed += 1;
    }
  } finally {
    await client.logout();
  }
  const endedAtMs = wallClockMs();
  return { seconds: (performance.now() - started) / 1000, parsed, peakRssMiB: peakRssMiB('self'), ...cpuSecondsSince(cpu), endedAtMs };
}

if (import.meta.main) {
  const [host, port, user, pass, expected] = process.argv.slice(2);
  const r = await floor(host as string, Number(port), user as string, pass as string);
  if (r.parsed !== Number(expected)) throw new Error(`the floor parsed ${r.parsed} of ${expected} mails`);
  process.stdout.write(JSON.stringify(r));
}
