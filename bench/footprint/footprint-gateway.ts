/**
 * What the footprint benchmark's sides share: `serve` with an e-mail
 * connector on a real Dovecot mailbox, posting to an external platform (the
 * sandbox in a process of its own, so the embedded one is not loaded in the
 * gateway), started as `npm start` starts it (the gateway's Node.js flags and
 * environment, the launcher), and what /proc says of a process's memory.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { GATEWAY_ENV, GATEWAY_NODE_FLAGS } from '../../src/cli/node-flags.ts';
import { freePort } from '../../test/support/ports.ts';
export { addMailUser, writeSettings } from '../email/mail-gateway-settings.ts';

export const LAUNCHER = join(import.meta.dirname, '../../src/cli/threadgate.js');

/** GATEWAY_ENV, each variable overridable from the benchmark's own environment (`MALLOC_ARENA_MAX=8` to compare). */
export function gatewayEnv(): Record<string, string> {
  return Object.fromEntries(Object.entries(GATEWAY_ENV).map(([name, value]) => [name, process.env[name] ?? value]));
}

/** The gateway's Node.js flags, then BENCH_GATEWAY_NODE_ARGS (e.g. `--max-semi-space-size=16` to compare). */
export function gatewayFlags(): string[] {
  return [...GATEWAY_NODE_FLAGS, ...(process.env.BENCH_GATEWAY_NODE_ARGS ?? '').split(' ').filter((a) => a !== '')];
}


export interface StartedGateway {
  child: ChildProcess;
  url: string;
  /** From the spawn until /readyz answered 200. */
  readySeconds: number;
  stop(): Promise<void>;
}

/** `serve` from the launcher, through `wrap` (a cgroup's) when given; resolves once /readyz answers 200. */
export async function startGateway(file: string, wrap?: (command: string, args: readonly string[]) => [string, string[]]): Promise<StartedGateway> {
  const port = await freePort();
  const args = [...gatewayFlags(), LAUNCHER, 'serve', '--config', file, '--port', String(port)];
  const [command, argv] = wrap ? wrap(process.execPath, args) : [process.execPath, args];
  const started = performance.now();
  const child = spawn(command, argv, { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, ...gatewayEnv() } });
  const exited = once(child, 'exit');
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    await exited;
  };
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`serve exited with ${child.exitCode ?? child.signalCode} before it was ready`);
    const status = await fetch(`${url}/readyz`).then((r) => r.status, () => 0);
    if (status === 200) break;
    if (performance.now() - started > 60_000) {
      await stop();
      throw new Error('serve was not ready after 60 s');
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  return { child, url, readySeconds: (performance.now() - started) / 1000, stop };
}

/** Mails the gateway's store holds as posted (0 before its first table exists). */
export function postedCount(db: string): number {
  try {
    const d = new Database(db, { readonly: true, fileMustExist: true });
    try {
      return (d.prepare(`select count(*) as n from inbound_messages where status = 'posted'`).get() as { n: number }).n;
    } finally {
      d.close();
    }
  } catch {
    return 0;
  }
}

/** Waits until `n` mails are posted; throws when the gateway exits first or `timeoutMs` passes. */
export async function untilPosted(db: string, n: number, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (postedCount(db) < n) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the gateway exited (${child.exitCode ?? child.signalCode}) with ${postedCount(db)} of ${n} mails posted`);
    if (Date.now() > deadline) throw new Error(`only ${postedCount(db)} of ${n} mails posted after ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A process's resident set now (VmRSS) and at its highest (VmHWM), MiB, from /proc. */
export function memoryOf(pid: number): { rssMiB: number; peakMiB: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1] ?? Number.NaN);
  return { rssMiB: kib('VmRSS') / 1024, peakMiB: kib('VmHWM') / 1024 };
}
