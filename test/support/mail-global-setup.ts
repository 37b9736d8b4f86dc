/**
 * vitest globalSetup: ONE Dovecot (IMAP with IDLE, LMTP, SMTP submission) and
 * ONE OpenSMTPD (SMTP, delivering mail for example.test and customer.test to
 * Dovecot over LMTP) for the whole run, on free loopback ports, with
 * configuration, mail and logs in a temp folder. Test files use them through ./mail-servers.ts,
 * which also types the provided facts (inject('mailServers')).
 *
 * - Users: one passwd-file per address. Dovecot opens the file named by the
 *   login at each lookup, so a user works the moment its file exists (a shared
 *   file is re-read at most once a second). Mail belongs to the user `mail`.
 * - OpenSMTPD's queue and control socket paths are compiled in. Where mount
 *   namespaces work (root on a VM, privileged containers) ours gets private
 *   ones bound over them, so concurrent runs and a system smtpd don't collide;
 *   elsewhere it uses the global ones: one run at a time, queue emptied first.
 * - OAuth2: Dovecot also takes access tokens (SASL XOAUTH2, OAUTHBEARER), which
 *   its oauth2 passdb checks with a token-info endpoint served here
 *   (./mail-oauth2.ts); tests register tokens through the control server.
 * - Submission: Dovecot's submission service takes mail only after AUTH (a
 *   password or a token, as IMAP does) and relays it to OpenSMTPD, which
 *   delivers it like any other.
 * - Dovecot restarts through an HTTP endpoint served here, so this process
 *   always owns what it stops at teardown (or exit). A state file in
 *   os.tmpdir() lists the servers; the next run kills those of a dead run.
 * - THREADGATE_MAIL_DEBUG=1 prints the start-up time and keeps the folder.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { connect, createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { TestProject } from 'vitest/node';
import type { MailServersInfo } from './mail-servers.ts';
import { startTokenInfo } from './mail-oauth2.ts';
import { dovecotConf, HOST, MAIL_ID, smtpdConf } from './mail-server-configs.ts';

const INSTALL = 'apt-get install -y --no-install-recommends dovecot-imapd dovecot-lmtpd dovecot-submissiond opensmtpd';
const READY_TIMEOUT_MS = 10_000;
const STOP_GRACE_MS = 3_000;
const POLL_MS = 10;
const PROBE_TIMEOUT_MS = 2_000;
const STATE_PREFIX = 'threadgate-mail-servers.';
const SMTPD_SPOOL = '/var/spool/smtpd';
const DEBUG = Boolean(process.env.THREADGATE_MAIL_DEBUG);
const ENV = { ...process.env, PATH: `${process.env.PATH ?? ''}:/usr/sbin:/sbin` };

/** `group`: leads its own process group, stopped as a whole (Dovecot's master leaves imap processes running). */
interface Proc { child: ChildProcess; start: string | undefined; log: string; group: boolean; exited: Promise<void> }
interface State { owner: number; ownerStart: string | undefined; dir: string; pids: { pid: number; start: string | undefined; group: boolean }[] }

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
const procStart = (pid: number) => procStat(pid)?.[19];
/** Whether a live process of group `pgid` remains. */
const groupAlive = (pgid: number) => readdirSync('/proc').some((pid) => /^\d+$/.test(pid) && procStat(pid)?.[2] === String(pgid));

function versions(): MailServersInfo['versions'] {
  const dovecot = spawnSync('dovecot', ['--version'], { env: ENV, encoding: 'utf8' });
  const smtpd = spawnSync('smtpd', ['-h'], { env: ENV, encoding: 'utf8' });
  const missing = [dovecot.error && 'dovecot', smtpd.error && 'smtpd', !existsSync('/usr/lib/dovecot/imap') && 'dovecot-imapd', !existsSync('/usr/lib/dovecot/lmtp') && 'dovecot-lmtpd', !existsSync('/usr/lib/dovecot/submission') && 'dovecot-submissiond'].filter(Boolean);
  if (missing.length > 0) throw new Error(`The e-mail tests need real mail servers, missing here: ${missing.join(', ')}.\nInstall them (CI does, in scripts/install-mail-servers):\n  sudo ${INSTALL}`);
  if (process.getuid?.() !== 0) throw new Error('The e-mail tests start Dovecot and OpenSMTPD, which must start as root (they drop privileges themselves).');
  const found = { dovecot: dovecot.stdout.trim(), smtpd: /OpenSMTPD\s+(\S+)/.exec(smtpd.stderr + smtpd.stdout)?.[1] ?? 'unknown' };
  if (!found.dovecot.startsWith('2.3.')) throw new Error(`mail-global-setup writes Dovecot 2.3 settings; found Dovecot ${found.dovecot}`);
  return found;
}

/** Kills the servers of earlier runs whose vitest process is gone, and removes their folders. */
async function cleanStale(): Promise<void> {
  for (const name of readdirSync(tmpdir()).filter((n) => n.startsWith(STATE_PREFIX))) {
    const file = join(tmpdir(), name);
    let state: State;
    try {
      state = JSON.parse(readFileSync(file, 'utf8')) as State;
    } catch {
      continue; // being written by a run starting right now
    }
    if (state.ownerStart !== undefined && procStart(state.owner) === state.ownerStart) continue; // a run still going
    const alive = () => state.pids.filter((p) => p.start !== undefined && procStart(p.pid) === p.start);
    const first = alive();
    for (const p of first) signal(p.group ? -p.pid : p.pid, p.group ? 'SIGKILL' : 'SIGTERM');
    for (let waited = 0; waited < STOP_GRACE_MS && alive().length > 0; waited += POLL_MS) await sleep(POLL_MS);
    for (const p of first) signal(p.group ? -p.pid : p.pid, 'SIGKILL');
    rmSync(state.dir, { recursive: true, force: true });
    rmSync(file, { force: true });
  }
}

/** `count` distinct free loopback ports (held open together, then released for the servers). */
async function freePorts(count: number): Promise<number[]> {
  const servers = Array.from({ length: count }, () => createServer());
  await Promise.all(servers.map((s) => new Promise<void>((resolve, reject) => s.once('error', reject).listen(0, HOST, resolve))));
  const ports = servers.map((s) => (s.address() as AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  return ports;
}

/** Connects to a port or unix socket; expects `greeting`, then may send `command` and test the tagged answer. */
function probe(to: number | string, greeting = '', command?: string, expect?: RegExp): Promise<boolean> {
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

function signal(pid: number, name: NodeJS.Signals): void {
  try { process.kill(pid, name); } catch {} // already gone
}

function launch(command: string, args: string[], log: string, group = false): Proc {
  const fd = openSync(log, 'a');
  const child = spawn(command, args, { stdio: ['ignore', fd, fd], env: ENV, detached: group });
  closeSync(fd);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()).once('error', () => resolve()));
  return { child, start: child.pid === undefined ? undefined : procStart(child.pid), log, group, exited };
}

const running = (p: Proc | undefined): boolean => p !== undefined && p.child.exitCode === null && p.child.signalCode === null;
const kill = (p: Proc | undefined, name: NodeJS.Signals) => p?.child.pid !== undefined && signal(p.group ? -p.child.pid : p.child.pid, name);

/** A group (Dovecot) is SIGKILLed as a whole: on SIGTERM its auth process dies before half-done logins, which then fail
 *  as "authentication failed" rather than drop, and its master waits seconds for login processes. */
async function stop(proc: Proc | undefined): Promise<void> {
  if (!proc || !running(proc)) return;
  kill(proc, proc.group ? 'SIGKILL' : 'SIGTERM');
  if ((await Promise.race([proc.exited, sleep(STOP_GRACE_MS, 'late' as const, { ref: false })])) === 'late') kill(proc, 'SIGKILL');
  await proc.exited;
  // the group's processes hold the listening sockets until they are gone
  for (let waited = 0; proc.group && waited < STOP_GRACE_MS && groupAlive(proc.child.pid ?? 0); waited += POLL_MS) await sleep(POLL_MS);
}

async function ready(name: string, proc: Proc, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!(await check())) {
    const tail = () => (existsSync(proc.log) ? readFileSync(proc.log, 'utf8').split('\n').slice(-15).join('\n') : '');
    if (!running(proc)) throw new Error(`${name} exited at start (${proc.child.exitCode ?? proc.child.signalCode}); ${proc.log}:\n${tail()}`);
    if (Date.now() > deadline) throw new Error(`${name} not ready after ${READY_TIMEOUT_MS} ms; ${proc.log}:\n${tail()}`);
    await sleep(POLL_MS);
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started = Date.now();
  const found = versions();
  await cleanStale();
  const tokenInfo = await startTokenInfo(HOST); // in this process: it outlives Dovecot's restarts
  const dir = mkdtempSync(join(tmpdir(), 'threadgate-mail-'));
  chmodSync(dir, 0o755); // Dovecot's unprivileged processes reach base_dir and homes below it
  for (const sub of ['users', 'mail', 'smtpd-spool', 'smtpd-run']) mkdirSync(join(dir, sub));
  chownSync(join(dir, 'mail'), MAIL_ID, MAIL_ID);
  chmodSync(join(dir, 'smtpd-spool'), 0o711);
  const [imapPort, smtpPort, lmtpPort, submissionPort] = (await freePorts(4)) as [number, number, number, number];
  const ports = { imap: imapPort, lmtp: lmtpPort, submission: submissionPort, smtp: smtpPort };
  writeFileSync(join(dir, 'dovecot.conf'), dovecotConf(dir, ports, tokenInfo.dovecotAuthConf(dir, `scheme=PLAIN ${dir}/users/%u`)));
  writeFileSync(join(dir, 'smtpd.conf'), smtpdConf(smtpPort, lmtpPort));
  const probeUser = `probe-${process.pid}@example.test`;
  writeFileSync(join(dir, 'users', probeUser), `${probeUser}:{PLAIN}probe::::::\n`);
  // Can smtpd get a private queue, i.e. may we bind mounts in a mount namespace of its own?
  const isolated = spawnSync('unshare', ['-m', 'sh', '-c', 'mount --bind "$1" "$1"', 'sh', dir], { env: ENV, stdio: 'ignore' }).status === 0;
  const stateFile = join(tmpdir(), `${STATE_PREFIX}${process.pid}.json`);

  let dovecot: Proc | undefined;
  let smtpd: Proc | undefined;
  const record = () => {
    const pids = [dovecot, smtpd].flatMap((p) => (p?.child.pid && running(p) ? [{ pid: p.child.pid, start: p.start, group: p.group }] : []));
    writeFileSync(stateFile, JSON.stringify({ owner: process.pid, ownerStart: procStart(process.pid), dir, pids } satisfies State));
  };
  const onExit = () => [dovecot, smtpd].forEach((p) => running(p) && kill(p, p?.group ? 'SIGKILL' : 'SIGTERM'));
  process.on('exit', onExit);
  const stopAll = async () => {
    await Promise.all([stop(dovecot), stop(smtpd)]);
    await tokenInfo.close();
    process.off('exit', onExit);
    if (!DEBUG) rmSync(dir, { recursive: true, force: true });
    rmSync(stateFile, { force: true });
  };
  const smtpctl = (...args: string[]) => {
    const command = isolated ? ['nsenter', '-m', '-t', String(smtpd?.child.pid), 'smtpctl', ...args] : ['smtpctl', ...args];
    const result = spawnSync(command[0] ?? '', command.slice(1), { env: ENV, encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`${command.join(' ')} failed: ${result.stderr}`);
  };
  const startDovecot = async () => {
    dovecot = launch('dovecot', ['-F', '-c', join(dir, 'dovecot.conf')], join(dir, 'dovecot.log'), true);
    record();
    const loginWorks = () => probe(imapPort, '* OK', `a LOGIN "${probeUser}" "probe"\r\n`, /^a OK/m);
    await ready('Dovecot', dovecot, async () => (await loginWorks()) && (await probe(lmtpPort, '220 ')) && (await probe(submissionPort, '220 ')));
  };

  const control = createHttpServer();
  let restarts: Promise<unknown> = Promise.resolve();
  try {
    if (!isolated && (await probe('/run/smtpd.sock'))) {
      throw new Error('Another OpenSMTPD runs on this machine (a system service or another test run), and mount namespaces are unavailable here to give ours a private queue: stop it (systemctl stop opensmtpd) or wait for the other run.');
    }
    if (isolated) mkdirSync(SMTPD_SPOOL, { recursive: true, mode: 0o711 });
    const smtpdArgs = ['-d', '-f', join(dir, 'smtpd.conf'), ...(isolated ? [] : ['-P', 'mda'])];
    const bindAndRun = `mount --bind "$1" ${SMTPD_SPOOL} && mount --bind "$2" /run && shift 2 && exec smtpd "$@"`;
    smtpd = isolated
      ? launch('unshare', ['-m', 'sh', '-c', bindAndRun, 'sh', join(dir, 'smtpd-spool'), join(dir, 'smtpd-run'), ...smtpdArgs], join(dir, 'smtpd.log'))
      : launch('smtpd', smtpdArgs, join(dir, 'smtpd.log'));
    await Promise.all([startDovecot(), ready('OpenSMTPD', smtpd, () => probe(smtpPort, '220 '))]);
    if (!isolated) {
      smtpctl('remove', 'all'); // a crashed run's envelopes in the global queue
      smtpctl('resume', 'mda');
    }
    record();

    control.on('request', (req, res) => {
      if (tokenInfo.handleControl(req, res)) return;
      if (req.method !== 'POST' || req.url !== '/restart-dovecot') return void res.writeHead(404).end();
      const restart = restarts.then(async () => {
        await stop(dovecot);
        await startDovecot();
        smtpctl('schedule', 'all'); // retry what LMTP refused meanwhile now, not minutes later
      });
      restarts = restart.catch(() => undefined);
      restart.then(() => res.writeHead(204).end(), (err: unknown) => res.writeHead(500).end(String(err)));
    });
    await new Promise<void>((resolve) => control.listen(0, HOST, resolve));
  } catch (err) {
    await stopAll();
    throw err;
  }

  const controlUrl = `http://${HOST}:${(control.address() as AddressInfo).port}`;
  project.provide('mailServers', { host: HOST, imapPort, smtpPort, lmtpPort, submissionPort, usersDir: join(dir, 'users'), controlUrl, versions: found });
  if (DEBUG) console.log(`mail servers up in ${Date.now() - started} ms (${isolated ? 'private' : 'global'} smtpd queue) in ${dir}`);

  return async () => {
    control.closeAllConnections();
    await new Promise<void>((resolve) => control.close(() => resolve()));
    await restarts;
    await stopAll();
  };
}
