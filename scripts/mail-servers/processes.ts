/**
 * The processes of the local mail servers (./servers.ts): starting one with
 * its output in a log file, telling a live process from a recycled pid,
 * stopping one (Dovecot as its whole process group), waiting until a server
 * answers, and finding free loopback ports.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, readdirSync } from 'node:fs';
import { connect, createServer, type AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { HOST } from './configs.ts';

export const READY_TIMEOUT_MS = 10_000;
export const STOP_GRACE_MS = 3_000;
export const POLL_MS = 10;
const PROBE_TIMEOUT_MS = 2_000;
/** Dovecot's and OpenSMTPD's binaries are in sbin, which a non-login shell may lack. */
export const ENV = { ...process.env, PATH: `${process.env.PATH ?? ''}:/usr/sbin:/sbin` };

/** `group`: leads its own process group, stopped as a whole (Dovecot's master leaves imap processes running). */
export interface Proc { child: ChildProcess; start: string | undefined; log: string; group: boolean; exited: Promise<void> }

/** Fields of /proc/PID/stat from the state on (state, ppid, pgrp, …); undefined when gone or a zombie. */
function procStat(pid: number | string): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[0] === 'Z' ? undefined : fields;
  } catch {
    return undefined;
  }
}

/** Start time of a live process, telling it from a recycled pid. */
export const procStart = (pid: number) => procStat(pid)?.[19];
/** Whether a live process of group `pgid` remains. */
const groupAlive = (pgid: number) => readdirSync('/proc').some((pid) => /^\d+$/.test(pid) && procStat(pid)?.[2] === String(pgid));

/** `count` distinct free loopback ports (held open together, then released for the servers). */
export async function freePorts(count: number): Promise<number[]> {
  const servers = Array.from({ length: count }, () => createServer());
  await Promise.all(servers.map((s) => new Promise<void>((resolve, reject) => s.once('error', reject).listen(0, HOST, resolve))));
  const ports = servers.map((s) => (s.address() as AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  return ports;
}

/** Connects to a port or unix socket; expects `greeting`, then may send `command` and test the tagged answer. */
export function probe(to: number | string, greeting = '', command?: string, expect?: RegExp): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = typeof to === 'number' ? connect(to, HOST) : connect(to);
    let text = '';
    const done = (ok: boolean) => { socket.destroy(); resolve(ok); };
    socket.setTimeout(PROBE_TIMEOUT_MS, () => done(false));
    socket.on('error', () => done(false)).on('close', () => done(false));
    socket.on('connect', () => greeting === '' && done(true));
    socket.on('data', (chunk: Buffer) => {
      const first = text === '';
      text += chunk.toString('latin1');
      if (first && !text.startsWith(greeting)) return done(false);
      if (!command || !expect) return done(true);
      if (first) socket.write(command);
      if (/^a (OK|NO|BAD)\b/m.test(text)) done(expect.test(text));
    });
  });
}

export function signal(pid: number, name: NodeJS.Signals): void {
  try { process.kill(pid, name); } catch {} // already gone
}

export function launch(command: string, args: string[], log: string, group = false): Proc {
  const fd = openSync(log, 'a');
  const child = spawn(command, args, { stdio: ['ignore', fd, fd], env: ENV, detached: group });
  closeSync(fd);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()).once('error', () => resolve()));
  return { child, start: child.pid === undefined ? undefined : procStart(child.pid), log, group, exited };
}

export const running = (p: Proc | undefined): boolean => p !== undefined && p.child.exitCode === null && p.child.signalCode === null;
export const kill = (p: Proc | undefined, name: NodeJS.Signals) => p?.child.pid !== undefined && signal(p.group ? -p.child.pid : p.child.pid, name);

/** A group (Dovecot) is SIGKILLed as a whole: on SIGTERM its auth process dies before half-done logins, which then fail
 *  as "authentication failed" rather than drop, and its master waits seconds for login processes. */
export async function stop(proc: Proc | undefined): Promise<void> {
  if (!proc || !running(proc)) return;
  kill(proc, proc.group ? 'SIGKILL' : 'SIGTERM');
  if ((await Promise.race([proc.exited, sleep(STOP_GRACE_MS, 'late' as const, { ref: false })])) === 'late') kill(proc, 'SIGKILL');
  await proc.exited;
  // the group's processes hold the listening sockets until they are gone
  for (let waited = 0; proc.group && waited < STOP_GRACE_MS && groupAlive(proc.child.pid ?? 0); waited += POLL_MS) await sleep(POLL_MS);
}

export async function ready(name: string, proc: Proc, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!(await check())) {
    const tail = () => (existsSync(proc.log) ? readFileSync(proc.log, 'utf8').split('\n').slice(-15).join('\n') : '');
    if (!running(proc)) throw new Error(`${name} exited at start (${proc.child.exitCode ?? proc.child.signalCode}); ${proc.log}:\n${tail()}`);
    if (Date.now() > deadline) throw new Error(`${name} not ready after ${READY_TIMEOUT_MS} ms; ${proc.log}:\n${tail()}`);
    await sleep(POLL_MS);
  }
}
