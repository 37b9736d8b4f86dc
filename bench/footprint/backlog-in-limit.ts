/**
 * The loaded half of `npm run bench:footprint`: a mailbox of 10,000 waiting
 * mails (BENCH_FOOTPRINT_MAILS; the e-mail backlog's mail, ~4 KB,
 * multipart/alternative) read by a gateway started inside a memory limit of
 * 256 MiB (BENCH_MEMORY_LIMIT_MIB), as a small container's: a cgroup made for
 * it (bench/support/memory-cgroup.ts). From its spawn until every mail is
 * posted to the platform: the seconds, its peak RSS (VmHWM), the group's
 * peak (page cache included, as the limit counts it), its anonymous memory
 * at the highest of the readings every 25 ms, and whether the OOM killer
 * ended anything. The reference runs in a group of its own with the same
 * limit, before and after the gateway (the faster counts): imapflow and
 * mailparser alone reading the same mailbox (bench/email/email-floor.ts).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fill, PASSWORD } from '../email/email-backlog.bench.ts';
import type { FloorResult } from '../email/email-floor.ts';
import type { ChildSandbox } from '../support/child-sandbox.ts';
import { memoryCgroup, type MemoryCgroup } from '../support/memory-cgroup.ts';
import type { MailServersInfo } from '../../test/support/mail-servers.ts';
import { addMailUser, gatewayEnv, gatewayFlags, memoryOf, postedCount, startGateway, writeSettings } from './footprint-gateway.ts';

export const BACKLOG_MAILS = Number(process.env.BENCH_FOOTPRINT_MAILS ?? 10_000);
export const LIMIT_MIB = Number(process.env.BENCH_MEMORY_LIMIT_MIB ?? 256);
const FLOOR = join(import.meta.dirname, '../email/email-floor.ts');
const MiB = 2 ** 20;

export interface LimitedRun {
  seconds: number;
  peakRssMiB: number;
  /** The group's peak, page cache included; undefined without a group. */
  groupPeakMiB: number | undefined;
  anonPeakMiB: number | undefined;
  oomKills: number | undefined;
  /** How the process ended when it did before the work was done (a signal: killed). */
  ended: string | undefined;
}

export interface BacklogInLimit {
  mails: number;
  limitMiB: number;
  /** Where the limit came from, or why none could be set (then the runs had none: emulated by their peaks alone). */
  limit: string;
  floor: LimitedRun & { runs: number[] };
  gateway: LimitedRun;
  posted: number;
}

function group(notes: string[]): MemoryCgroup | undefined {
  return memoryCgroup(LIMIT_MIB * MiB, (reason) => notes.push(reason));
}

function readGroup(g: MemoryCgroup | undefined, anonPeak: number): Pick<LimitedRun, 'groupPeakMiB' | 'anonPeakMiB' | 'oomKills'> {
  return g ? { groupPeakMiB: g.peakBytes() / MiB, anonPeakMiB: anonPeak / MiB, oomKills: g.oomKills() } : { groupPeakMiB: undefined, anonPeakMiB: undefined, oomKills: undefined };
}

/** imapflow + mailparser alone on the mailbox, in a group of its own. */
async function floor(mail: MailServersInfo, user: string, notes: string[]): Promise<LimitedRun> {
  const g = group(notes);
  const args = [...gatewayFlags(), FLOOR, mail.host, String(mail.imapPort), user, PASSWORD, String(BACKLOG_MAILS)];
  const [command, argv] = g ? g.wrap(process.execPath, args) : [process.execPath, args];
  try {
    // The compile cache from the start, as the gateway's launcher has it: a warm run does not load the type stripper
    // for this TypeScript entry (17 MiB that would be counted against the libraries).
    const env = { ...process.env, ...gatewayEnv(), NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE ?? join(tmpdir(), 'node-compile-cache') };
    const child = spawn(command, argv, { stdio: ['ignore', 'pipe', 'inherit'], env });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    let anonPeak = 0;
    const sampler = setInterval(() => (anonPeak = Math.max(anonPeak, g?.anonBytes() ?? 0)), 25);
    const [code, signal] = (await new Promise((resolve) => child.once('exit', (c, s) => resolve([c, s])))) as [number | null, string | null];
    clearInterval(sampler);
    const ended = code === 0 ? undefined : String(signal ?? code);
    const r = ended === undefined ? (JSON.parse(out) as FloorResult) : undefined;
    return { seconds: r?.seconds ?? Number.NaN, peakRssMiB: r?.peakRssMiB ?? Number.NaN, ...readGroup(g, anonPeak), ended };
  } finally {
    g?.remove();
  }
}

/** The gateway from its spawn until every mail is posted (or it ended). */
async function gateway(dir: string, sandbox: ChildSandbox, mail: MailServersInfo, user: string, notes: string[]): Promise<LimitedRun & { posted: number }> {
  const g = group(notes);
  const { file, db } = writeSettings(mkdtempSync(join(dir, 'backlog-')), sandbox, mail, user);
  const spawned = performance.now();
  const started = await startGateway(file, g?.wrap);
  const { child } = started;
  let anonPeak = 0;
  let peakRssMiB = 0;
  try {
    const deadline = Date.now() + 900_000;
    while (child.exitCode === null && child.signalCode === null && postedCount(db) < BACKLOG_MAILS && Date.now() < deadline) {
      anonPeak = Math.max(anonPeak, g?.anonBytes() ?? 0);
      peakRssMiB = memoryOf(child.pid as number).peakMiB;
      await new Promise((r) => setTimeout(r, 25));
    }
    const seconds = (performance.now() - spawned) / 1000;
    const gone = child.exitCode !== null || child.signalCode !== null;
    if (!gone) peakRssMiB = memoryOf(child.pid as number).peakMiB;
    const ended = gone ? String(child.signalCode ?? child.exitCode) : undefined;
    return { seconds, peakRssMiB, ...readGroup(g, anonPeak), ended, posted: postedCount(db) };
  } finally {
    await started.stop();
    g?.remove();
  }
}

export async function backlogInLimit(dir: string, sandbox: ChildSandbox, mail: MailServersInfo): Promise<BacklogInLimit> {
  const user = addMailUser(mail, 'backlog');
  await fill(mail, user, BACKLOG_MAILS);
  const notes: string[] = [];
  const before = await floor(mail, user, notes);
  const run = await gateway(dir, sandbox, mail, user, notes);
  const after = await floor(mail, user, notes);
  const fastest = after.seconds < before.seconds ? after : before;
  // The faster run's seconds; each peak the lower of the two (the first may have filled the compile cache).
  const lower = (key: 'peakRssMiB' | 'groupPeakMiB' | 'anonPeakMiB') => Math.min(before[key] ?? Number.NaN, after[key] ?? Number.NaN);
  const probe = memoryCgroup(LIMIT_MIB * MiB, () => {});
  const limit = probe ? probe.kind : `none: ${notes.join('; ')}`;
  probe?.remove();
  const { posted, ...gatewayRun } = run;
  return { mails: BACKLOG_MAILS, limitMiB: LIMIT_MIB, limit, floor: { ...fastest, peakRssMiB: lower('peakRssMiB'), groupPeakMiB: lower('groupPeakMiB'), anonPeakMiB: lower('anonPeakMiB'), runs: [before.seconds, after.seconds] }, gateway: gatewayRun, posted };
}
