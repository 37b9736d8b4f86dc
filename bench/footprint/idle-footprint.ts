/**
 * The idle half of `npm run bench:footprint`: the resident memory of three
 * processes started together and read after the same idle time, round after
 * round (each a fresh process):
 *   - Node.js alone, `node -e` waiting on a timer: what any Node process holds;
 *   - the libraries `serve` imports at its start, imported alone and then
 *     waiting (LIBRARIES below): what is theirs;
 *   - `serve` with an e-mail connector on an empty Dovecot mailbox, posting
 *     to an external platform: its RSS when /readyz first answers 200, after
 *     the idle time (past its first idle platform probe, at 30 s), and after
 *     200 mails then arrived, were posted, and the same idle time passed.
 * All three with the gateway's Node.js flags and environment.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { fill } from '../email/email-backlog.bench.ts';
import type { ChildSandbox } from '../support/child-sandbox.ts';
import type { MailServersInfo } from '../../test/support/mail-servers.ts';
import { addMailUser, gatewayEnv, gatewayFlags, memoryOf, startGateway, untilPosted, writeSettings } from './footprint-gateway.ts';

/**
 * What `serve` with an e-mail connector imports of its libraries at its start (a `module.registerHooks` load hook on
 * an idle `serve`, 2026-11-29), by the same entry points: undici and prom-client by the sub-paths the gateway uses
 * (src/platform/undici.ts, src/http/prom-client.ts). mailparser and html-to-text come with the first mail, nodemailer
 * with the first reply.
 */
const ROOTS = ['fastify', 'pino', 'zod', 'yaml', 'better-sqlite3', 'drizzle-orm/migrator', 'imapflow'];
const SUB_PATHS = [
  ...['dispatcher/pool', 'dispatcher/agent', 'api/index', 'core/errors'].map((p) => `undici/lib/${p}.js`),
  ...['registry', 'counter', 'gauge', 'histogram'].map((p) => `prom-client/lib/${p}.js`),
];
export const LIBRARIES = [...ROOTS, 'undici/lib/{dispatcher/pool,dispatcher/agent,api/index,core/errors}.js', 'prom-client/lib/{registry,counter,gauge,histogram}.js'];
const IMPORT_LIBRARIES = `
import { createRequire, enableCompileCache } from 'node:module';
enableCompileCache();
for (const l of ${JSON.stringify(ROOTS)}) await import(l);
const require = createRequire(import.meta.url);
for (const p of ${JSON.stringify(SUB_PATHS)}) require(p);
console.log('ready');
setInterval(() => {}, 1 << 30);
`;
/** Mails that arrive after the first idle reading. */
export const ARRIVING_MAILS = 200;

export interface IdleRound {
  nodeMiB: number;
  librariesMiB: number;
  serveReadyMiB: number;
  serveReadySeconds: number;
  serveIdleMiB: number;
  serveAfterMailsMiB: number;
  /** The gateway's highest RSS over the round (VmHWM): its start, the mails. */
  servePeakMiB: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A Node.js process with the gateway's flags and environment; resolves once it printed `ready` (or at once). */
async function idler(args: string[], waitForReady: boolean): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...gatewayFlags(), ...args], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...gatewayEnv() } });
  if (waitForReady) {
    let out = '';
    await new Promise<void>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`the libraries' process exited with ${code}`)));
      child.stdout!.setEncoding('utf8').on('data', (chunk: string) => ((out += chunk).includes('ready') ? resolve() : undefined));
    });
  }
  return child;
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

/** One round: the three processes side by side, read after `idleMs`; then the mails, and `idleMs` again. */
export async function idleRound(dir: string, sandbox: ChildSandbox, mail: MailServersInfo, idleMs: number): Promise<IdleRound> {
  const user = addMailUser(mail, 'footprint');
  const { file, db } = writeSettings(mkdtempSync(join(dir, 'idle-')), sandbox, mail, user);
  const node = await idler(['-e', 'setInterval(() => {}, 1 << 30)'], false);
  const libraries = await idler(['--input-type=module', '-e', IMPORT_LIBRARIES], true);
  const gateway = await startGateway(file);
  try {
    const pid = gateway.child.pid as number;
    const serveReadyMiB = memoryOf(pid).rssMiB;
    await sleep(idleMs);
    const serveIdleMiB = memoryOf(pid).rssMiB;
    const nodeMiB = memoryOf(node.pid as number).rssMiB;
    const librariesMiB = memoryOf(libraries.pid as number).rssMiB;
    await Promise.all([stop(node), stop(libraries)]);
    await fill(mail, user, ARRIVING_MAILS);
    await untilPosted(db, ARRIVING_MAILS, gateway.child, 120_000);
    await sleep(idleMs);
    const after = memoryOf(pid);
    return { nodeMiB, librariesMiB, serveReadyMiB, serveReadySeconds: gateway.readySeconds, serveIdleMiB, serveAfterMailsMiB: after.rssMiB, servePeakMiB: after.peakMiB };
  } finally {
    await Promise.all([stop(node), stop(libraries), gateway.stop()]);
  }
}
