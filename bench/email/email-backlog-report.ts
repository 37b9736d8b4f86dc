/**
 * What `npm run bench:email-backlog` (bench/email/email-backlog.bench.ts) measures,
 * and how it prints it: the table against the floors, the CPU of every process
 * on the machine over the gateway's run, and the target against that CPU
 * (bench/support/budget.ts).
 */
import { cpus } from 'node:os';
import { printBudget } from '../support/budget.ts';
import type { FloorResult } from './email-floor.ts';

export interface BacklogResult {
  mails: number;
  /** The faster of the floor's two runs (before the gateway and after it), and both. */
  floorSeconds: number;
  floorRuns: [number, number];
  /** The floor from its spawn (its process's start and its imports in it), the faster of its two runs. */
  floorSinceSpawnSeconds: number;
  /** The floor's own process at its peak (VmHWM), the lower of its two runs'. */
  floorRssMiB: number;
  floorCpuSeconds: number;
  /** Its main thread's alone. */
  floorMainCpuSeconds: number;
  /** The floor that also stores and posts each mail (email-floor-posting.ts). */
  postingFloor: FloorResult;
  gatewaySeconds: number;
  /** From the spawn until every mail was stored (submitted), before all were posted. */
  storedSeconds: number;
  /** From the spawn until the first mail was stored: the gateway's start and its first download. */
  firstStoredSeconds: number;
  /** How many were stored then (the first group). */
  firstStoredMails: number;
  peakRssMiB: number;
  /** The gateway process's CPU time (all its threads, user + system) from its spawn until all were posted. */
  gatewayCpuSeconds: number;
  /** Its main thread's alone. */
  gatewayMainCpuSeconds: number;
  /** Over the same seconds: every Dovecot process's CPU (the gateway's IMAP session), and the sandbox platform's. */
  dovecotCpuSeconds: number;
  platformCpuSeconds: number;
  posted: number;
}

export function reportBacklog(r: BacklogResult): void {
  const fmt = (n: number, d = 0) => n.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });
  console.log(`| e-mail backlog, ${fmt(r.mails)} mails waiting | seconds | mails/s | × floor | peak RSS |`);
  console.log('|---|---:|---:|---:|---:|');
  console.log(
    `| imapflow + mailparser alone (the floor, its own process; the faster of ${r.floorRuns.map((s) => `${fmt(s, 2)} s`).join(' before the gateway and ')} after) | ` +
      `${fmt(r.floorSeconds, 2)} | ${fmt(r.mails / r.floorSeconds)} | — | ${fmt(r.floorRssMiB, 1)} MiB |`,
  );
  const p = r.postingFloor;
  console.log(
    `| the floor storing and posting each mail (email-floor-posting.ts, its own process) | ${fmt(p.seconds, 2)} | ${fmt(r.mails / p.seconds)} | ` +
      `${fmt(r.floorSeconds / p.seconds, 3)} | ${fmt(p.peakRssMiB, 1)} MiB |`,
  );
  // A program that stores and posts as the gateway must starts as a process too: the posting floor counted as the
  // gateway is, from its spawn, is the least any gateway of this stack can take (it imports fewer libraries).
  const ps = p.sinceSpawnSeconds ?? Number.NaN;
  console.log(
    `| the same, from its spawn (its start and its imports of imapflow, mailparser, better-sqlite3 and undici in it) | ${fmt(ps, 2)} | ${fmt(r.mails / ps)} | ` +
      `${fmt(r.floorSeconds / ps, 3)} | — |`,
  );
  console.log(`| gateway: start → first mails stored (its start-up and its first ${fmt(r.firstStoredMails)}) | ${fmt(r.firstStoredSeconds, 2)} | — | — | — |`);
  console.log(`| gateway: start → all stored (submitted) | ${fmt(r.storedSeconds, 2)} | ${fmt(r.mails / r.storedSeconds)} | ${fmt(r.floorSeconds / r.storedSeconds, 3)} | — |`);
  console.log(
    `| gateway: start → all posted to the platform | ${fmt(r.gatewaySeconds, 2)} | ${fmt(r.mails / r.gatewaySeconds)} | ` +
      `${fmt(r.floorSeconds / r.gatewaySeconds, 3)} | ${fmt(r.peakRssMiB, 1)} MiB |`,
  );
  const fs = r.floorSinceSpawnSeconds;
  console.log(
    `\nEach counted from its spawn, the libraries alone too (${fmt(fs, 2)} s, the faster of its two runs): ` +
      `the posting floor ${fmt(fs / ps, 3)}×, the gateway ${fmt(fs / r.gatewaySeconds, 3)}×.`,
  );
  const perMail = (seconds: number) => `${fmt(seconds, 2)} s, ${fmt((seconds * 1e6) / r.mails)} µs a mail`;
  console.log(
    `\nCPU (each process, all its threads): the libraries alone ${perMail(r.floorCpuSeconds)}; the posting floor ${perMail(p.cpuSeconds)}; ` +
      `the gateway from its spawn to the last post ${perMail(r.gatewayCpuSeconds)} (its platform and Dovecot not counted in any)`,
  );
  // The machine's budget: what the gateway's run took of all cores, beside it the servers it talks to.
  const cores = (seconds: number) => fmt(seconds / r.gatewaySeconds, 2);
  const all = r.gatewayCpuSeconds + r.dovecotCpuSeconds + r.platformCpuSeconds;
  console.log(
    `Over the gateway's ${fmt(r.gatewaySeconds, 2)} s: Dovecot ${perMail(r.dovecotCpuSeconds)}, the sandbox platform ${perMail(r.platformCpuSeconds)}; ` +
      `with the gateway ${fmt(all, 2)} CPU seconds, ${cores(all)} of the machine's ${cpus().length} cores.`,
  );
  // The target against the run's CPU (bench/support/budget.ts): the gateway's from its spawn (its start-up is in its time too),
  // the floors' from their connect, set also against what the target's time leaves a thread after the gateway's
  // start-up; Dovecot and the platform as they served the gateway.
  const perMailMicros = (seconds: number) => (seconds * 1e6) / r.mails;
  printBudget({
    target: 'the e-mail backlog at 0.5× the libraries alone',
    unit: 'mail',
    rate: (0.5 * r.mails) / r.floorSeconds,
    others: [
      { name: 'Dovecot', micros: perMailMicros(r.dovecotCpuSeconds) },
      { name: 'the platform', micros: perMailMicros(r.platformCpuSeconds) },
    ],
    rows: [
      { label: 'gateway, from its spawn', processMicros: perMailMicros(r.gatewayCpuSeconds), mainThreadMicros: perMailMicros(r.gatewayMainCpuSeconds) },
      { label: 'the posting floor, from its connect', processMicros: perMailMicros(p.cpuSeconds), mainThreadMicros: perMailMicros(p.mainCpuSeconds), fromFirstUnit: true },
      {
        label: 'imapflow + mailparser alone (the reference), from its connect',
        processMicros: perMailMicros(r.floorCpuSeconds),
        mainThreadMicros: perMailMicros(r.floorMainCpuSeconds),
        fromFirstUnit: true,
      },
    ],
    start: { seconds: r.firstStoredSeconds, units: r.mails, done: r.firstStoredMails },
  });
}
