/**
 * `npm run bench:email-backlog`: a mailbox full of customer mail waiting for
 * a gateway that was down. N mails (BENCH_MAILS, default 2,000:
 * multipart/alternative, ~4 KB with quoted history) are APPENDed straight into
 * a real Dovecot INBOX; then, side by side on the same mailbox:
 *   (a) the floor: imapflow + mailparser alone, fetching every message's
 *       source a page of UIDs at a time and parsing it, one after another, as
 *       a minimal importer in bounded memory would, in a process of its own
 *       started with the gateway's Node.js flags and environment (email-floor.ts): its
 *       seconds from the connect, and its peak RSS;
 *   (a') the same floor storing each mail in a grouped synced write, posting
 *       it to the platform and marking it posted (email-floor-posting.ts):
 *       the least the gateway's duties add to the libraries;
 *   (b) a gateway child process (`threadgate serve`, an e-mail connector,
 *       store at `synchronous: full`) started against a sandbox platform in
 *       its own process: seconds from the spawn until every mail is posted to
 *       the platform, and the gateway's peak RSS (VmHWM).
 * Uses the test suite's mail-server setup (root, Debian's dovecot-imapd
 * dovecot-lmtpd dovecot-submissiond opensmtpd: scripts/install-mail-servers).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { ImapFlow } from 'imapflow';
import type { TestProject } from 'vitest/node';
import { stringify } from 'yaml';
import { GATEWAY_ENV, GATEWAY_NODE_FLAGS } from '../src/cli/node-flags.ts';
import setupMailServers from '../test/support/mail-global-setup.ts';
import type { MailServersInfo } from '../test/support/mail-servers.ts';
import { startChildSandbox } from './child-sandbox.ts';
import { peakRssMiB, type FloorResult } from './email-floor.ts';
import { printBudget } from './budget.ts';
import { cpuSince, mainThreadCpuMicros, processCpuMicros, processesCpuMicros } from './measure.ts';
import { spawnJson } from './spawn-json.ts';

const MAILS = Number(process.env.BENCH_MAILS ?? 2_000);
const MAIN = join(import.meta.dirname, '../src/cli/threadgate.js');
const FLOOR = join(import.meta.dirname, 'email-floor.ts');
const POSTING_FLOOR = join(import.meta.dirname, 'email-floor-posting.ts');
const PASSWORD = 'bench';

export interface BacklogResult {
  mails: number;
  floorSeconds: number;
  /** The floor's own process at its peak (VmHWM). */
  floorRssMiB: number;
  floorCpuSeconds: number;
  /** The floor that also stores and posts each mail (email-floor-posting.ts). */
  postingFloor: FloorResult;
  gatewaySeconds: number;
  /** From the spawn until every mail was stored (submitted), before all were posted. */
  storedSeconds: number;
  /** From the spawn until the first mail was stored: the gateway's start and its first download. */
  firstStoredSeconds: number;
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

/** GATEWAY_ENV, each variable overridable from the benchmark's own environment (e.g. `MALLOC_ARENA_MAX=8` to compare). */
function gatewayEnv(): Record<string, string> {
  return Object.fromEntries(Object.entries(GATEWAY_ENV).map(([name, value]) => [name, process.env[name] ?? value]));
}

/** A customer's reply with the conversation quoted below it, as text and HTML. */
function mail(i: number, to: string): string {
  const history = Array.from({ length: 12 }, (_, n) => `> On day ${n + 1} we wrote: your order ${i} is on its way, tracking number ${100_000 + n}.`).join('\n');
  const text = `Hello,\n\nmy order ${i} has still not arrived. Could you look into it?\n\nThanks,\nCustomer ${i}\n\n${history}\n`;
  const html = `<html><body><p>Hello,</p><p>my order ${i} has still not arrived. Could you look into it?</p><p>Thanks,<br>Customer ${i}</p><blockquote>${history.replaceAll('\n', '<br>')}</blockquote></body></html>`;
  return [
    `From: Customer ${i} <customer${i}@customer.test>`,
    `To: ${to}`,
    `Subject: Order ${i} missing`,
    `Message-ID: <backlog-${i}@customer.test>`,
    `Date: ${new Date(Date.UTC(2026, 10, 20, 8, 0, i % 60)).toUTCString()}`,
    'MIME-Version: 1.0',
    'Content-Type: multipart/alternative; boundary="b1"',
    '',
    '--b1',
    'Content-Type: text/plain; charset=utf-8',
    '',
    text,
    '--b1',
    'Content-Type: text/html; charset=utf-8',
    '',
    html,
    '--b1--',
    '',
  ].join('\r\n');
}

const imap = (info: MailServersInfo, user: string) =>
  new ImapFlow({ host: info.host, port: info.imapPort, secure: false, auth: { user, pass: PASSWORD }, logger: false });

async function fill(info: MailServersInfo, user: string): Promise<void> {
  const client = imap(info, user);
  await client.connect();
  try {
    for (let i = 0; i < MAILS; i++) await client.append('INBOX', mail(i, user));
  } finally {
    await client.logout();
  }
}

function count(file: string, sql: string): number {
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      return (db.prepare(sql).get() as { n: number }).n;
    } finally {
      db.close();
    }
  } catch {
    return 0; // not created yet
  }
}

/**
 * email-floor-posting.ts on the same mailbox, posting to a sandbox of its own (so the gateway's finds no
 * conversations of it) through a channel configuration registered here, not timed.
 */
async function postingFloor(mail: MailServersInfo, user: string, dir: string): Promise<FloorResult> {
  const sandbox = await startChildSandbox();
  const sink = createServer((_req, res) => res.end()).listen(0, '127.0.0.1');
  await once(sink, 'listening');
  try {
    const res = await fetch(`${sandbox.url}/api/v5/orgs/${sandbox.organizationId}/unified_messaging`, {
      method: 'POST',
      headers: { authorization: `Token ${sandbox.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'posting floor',
        messaging_channel: 'email',
        room_id: sandbox.roomId,
        reply_webhook_url: `http://127.0.0.1:${(sink.address() as AddressInfo).port}/`,
      }),
    });
    const config = (await res.json()) as { id?: string };
    if (res.status !== 201 || !config.id) throw new Error(`the sandbox did not register the floor's configuration: ${res.status} ${JSON.stringify(config)}`);
    const floorDir = mkdtempSync(join(dir, 'posting-floor-'));
    const args = [mail.host, String(mail.imapPort), user, PASSWORD, String(MAILS), sandbox.url, sandbox.organizationId, sandbox.token, config.id, floorDir];
    return await spawnJson<FloorResult>(POSTING_FLOOR, args, gatewayEnv(), GATEWAY_NODE_FLAGS);
  } finally {
    sink.close();
    await sandbox.close();
  }
}

export async function benchEmailBacklog(): Promise<BacklogResult> {
  let info: MailServersInfo | undefined;
  const teardown = await setupMailServers({ provide: (_key: string, value: MailServersInfo) => void (info = value) } as unknown as TestProject);
  const dir = mkdtempSync(join(tmpdir(), 'tg-bench-backlog-'));
  const sandbox = await startChildSandbox();
  let child: ChildProcess | undefined;
  try {
    const mail = info as MailServersInfo;
    const support = `backlog-${process.pid}@example.test`;
    writeFileSync(join(mail.usersDir, support), `${support}:{PLAIN}${PASSWORD}::::::\n`, { mode: 0o644 });
    await fill(mail, support);
    // The floors run with the gateway's Node.js flags and environment: their heaps and arenas are sized as its are.
    const floor = await spawnJson<FloorResult>(FLOOR, [mail.host, String(mail.imapPort), support, PASSWORD, String(MAILS)], gatewayEnv(), GATEWAY_NODE_FLAGS);
    const floorSeconds = floor.seconds;
    const posting = await postingFloor(mail, support, dir);

    const file = join(dir, 'threadgate.yaml');
    const db = join(dir, 'backlog.db');
    writeFileSync(
      file,
      stringify({
        platform: { url: sandbox.url, organization_id: sandbox.organizationId, token: sandbox.token },
        server: { port: 0 },
        store: { path: db },
        log: { level: 'warn' },
        connectors: [
          {
            name: 'mail', type: 'email', room_id: sandbox.roomId, address: support,
            imap: { host: mail.host, port: mail.imapPort, secure: false, user: support, password: PASSWORD },
            smtp: { host: mail.host, port: mail.smtpPort, secure: false },
          },
        ],
      }),
    );
    const dovecotBefore = processesCpuMicros('dovecot');
    const platformBefore = processCpuMicros(sandbox.pid);
    const started = performance.now();
    // BENCH_GATEWAY_NODE_ARGS: node flags for the gateway alone (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`);
    // BENCH_GATEWAY_STDOUT=1 shows its standard output (e.g. with `--trace-gc-nvp`).
    const nodeArgs = (process.env.BENCH_GATEWAY_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');
    // With the gateway's Node.js flags and environment, as `npm start` and the image start it.
    child = spawn(process.execPath, [...GATEWAY_NODE_FLAGS, ...nodeArgs, MAIN, 'serve', '--config', file], {
      stdio: ['ignore', process.env.BENCH_GATEWAY_STDOUT === '1' ? 'inherit' : 'ignore', 'inherit'],
      env: { ...process.env, ...gatewayEnv() },
    });
    const gone = new Promise<never>((_, reject) => child!.once('exit', (code) => reject(new Error(`the gateway exited with ${code}`))));
    const posted = () => count(db, `select count(*) as n from inbound_messages where status = 'posted'`);
    const stored = () => count(db, `select count(*) as n from inbound_messages`);
    const deadline = Date.now() + 600_000;
    let storedSeconds = Number.NaN;
    let firstStoredSeconds = Number.NaN;
    while (posted() < MAILS) {
      const n = stored();
      if (Number.isNaN(firstStoredSeconds) && n > 0) firstStoredSeconds = (performance.now() - started) / 1000;
      if (Number.isNaN(storedSeconds) && n >= MAILS) storedSeconds = (performance.now() - started) / 1000;
      if (Date.now() > deadline) throw new Error(`only ${posted()} of ${MAILS} mails posted after 600 s`);
      await Promise.race([new Promise((r) => setTimeout(r, 25)), gone]);
    }
    const gatewaySeconds = (performance.now() - started) / 1000;
    const gatewayCpuSeconds = processCpuMicros(child.pid as number) / 1e6;
    const gatewayMainCpuSeconds = mainThreadCpuMicros(child.pid as number) / 1e6;
    const dovecotCpuSeconds = cpuSince(dovecotBefore, processesCpuMicros('dovecot')) / 1e6;
    const platformCpuSeconds = (processCpuMicros(sandbox.pid) - platformBefore) / 1e6;
    if (Number.isNaN(storedSeconds)) storedSeconds = gatewaySeconds;
    return {
      mails: MAILS, floorSeconds, floorRssMiB: floor.peakRssMiB, floorCpuSeconds: floor.cpuSeconds, postingFloor: posting, gatewaySeconds, storedSeconds,
      firstStoredSeconds, peakRssMiB: peakRssMiB(child.pid as number), gatewayCpuSeconds, gatewayMainCpuSeconds, dovecotCpuSeconds, platformCpuSeconds, posted: posted(),
    };
  } finally {
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child!.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    await sandbox.close();
    await teardown();
    rmSync(dir, { recursive: true, force: true });
  }
}

export function reportBacklog(r: BacklogResult): void {
  const fmt = (n: number, d = 0) => n.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });
  console.log(`| e-mail backlog, ${fmt(r.mails)} mails waiting | seconds | mails/s | × floor | peak RSS |`);
  console.log('|---|---:|---:|---:|---:|');
  console.log(`| imapflow + mailparser alone (the floor, its own process) | ${fmt(r.floorSeconds, 2)} | ${fmt(r.mails / r.floorSeconds)} | — | ${fmt(r.floorRssMiB, 1)} MiB |`);
  const p = r.postingFloor;
  console.log(
    `| the floor storing and posting each mail (email-floor-posting.ts, its own process) | ${fmt(p.seconds, 2)} | ${fmt(r.mails / p.seconds)} | ` +
      `${fmt(r.floorSeconds / p.seconds, 3)} | ${fmt(p.peakRssMiB, 1)} MiB |`,
  );
  console.log(`| gateway: start → first mail stored (its start-up) | ${fmt(r.firstStoredSeconds, 2)} | — | — | — |`);
  console.log(`| gateway: start → all stored (submitted) | ${fmt(r.storedSeconds, 2)} | ${fmt(r.mails / r.storedSeconds)} | ${fmt(r.floorSeconds / r.storedSeconds, 3)} | — |`);
  console.log(
    `| gateway: start → all posted to the platform | ${fmt(r.gatewaySeconds, 2)} | ${fmt(r.mails / r.gatewaySeconds)} | ` +
      `${fmt(r.floorSeconds / r.gatewaySeconds, 3)} | ${fmt(r.peakRssMiB, 1)} MiB |`,
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
  // The target against the run's CPU (bench/budget.ts): the gateway's from its spawn (its start-up is in its time too),
  // the posting floor's from its connect; Dovecot and the platform as they served the gateway.
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
      { label: 'the posting floor, from its connect', processMicros: perMailMicros(p.cpuSeconds), mainThreadMicros: perMailMicros(p.mainCpuSeconds) },
    ],
  });
}

if (import.meta.main) reportBacklog(await benchEmailBacklog());
