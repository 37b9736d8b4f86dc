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
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { ImapFlow } from 'imapflow';
import type { TestProject } from 'vitest/node';
import { GATEWAY_ENV, GATEWAY_NODE_FLAGS } from '../../src/cli/node-flags.ts';
import setupMailServers from '../../test/support/mail-global-setup.ts';
import type { MailServersInfo } from '../../test/support/mail-servers.ts';
import { startChildSandbox } from '../support/child-sandbox.ts';
import { PASSWORD, writeSettings } from './mail-gateway-settings.ts';
import { reportBacklog, type BacklogResult } from './email-backlog-report.ts';
import { peakRssMiB, wallClockMs, type FloorResult } from './email-floor.ts';
import { cpuSince, mainThreadCpuMicros, processCpuMicros, processesCpuMicros } from '../support/measure.ts';
import { spawnJson } from '../support/spawn-json.ts';

const MAILS = Number(process.env.BENCH_MAILS ?? 2_000);
const MAIN = join(import.meta.dirname, '../../src/cli/threadgate.js');
const FLOOR = join(import.meta.dirname, 'email-floor.ts');
const POSTING_FLOOR = join(import.meta.dirname, 'email-floor-posting.ts');
export { PASSWORD };

/** GATEWAY_ENV, each variable overridable from the benchmark's own environment (e.g. `MALLOC_ARENA_MAX=8` to compare). */
function gatewayEnv(): Record<string, string> {
  return Object.fromEntries(Object.entries(GATEWAY_ENV).map(([name, value]) => [name, process.env[name] ?? value]));
}

/** A customer's reply with the conversation quoted below it, as text and HTML (bench/footprint/ appends them too). */
export function mail(i: number, to: string): string {
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

/** `count` mails APPENDed into the user's INBOX, numbered from `first` (their Message-IDs say the number). */
export async function fill(info: MailServersInfo, user: string, count = MAILS, first = 0): Promise<void> {
  const client = imap(info, user);
  await client.connect();
  try {
    for (let i = first; i < first + count; i++) await client.append('INBOX', mail(i, user));
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

/** A floor in a process of its own (with the gateway's flags and environment), its seconds also counted from its spawn. */
async function spawnFloor(script: string, args: readonly string[]): Promise<FloorResult> {
  const spawnedAtMs = wallClockMs();
  const result = await spawnJson<FloorResult>(script, args, gatewayEnv(), GATEWAY_NODE_FLAGS);
  return { ...result, sinceSpawnSeconds: (result.endedAtMs - spawnedAtMs) / 1000 };
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
    return await spawnFloor(POSTING_FLOOR, args);
  } finally {
    sink.close();
    await sandbox.close();
  }
}

/** SIGTERM, then its exit; nothing when it has exited. */
async function stopGateway(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
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
    const runFloor = () => spawnFloor(FLOOR, [mail.host, String(mail.imapPort), support, PASSWORD, String(MAILS)]);
    const floor = await runFloor();
    const posting = await postingFloor(mail, support, dir);

    const { file, db } = writeSettings(dir, sandbox, mail, support, { dbName: 'backlog.db', server: { port: 0 } });
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
    let firstStoredMails = 0;
    while (posted() < MAILS) {
      const n = stored();
      if (Number.isNaN(firstStoredSeconds) && n > 0) {
        firstStoredSeconds = (performance.now() - started) / 1000;
        firstStoredMails = n;
      }
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
    const gatewayPeakRssMiB = peakRssMiB(child.pid as number);
    const postedCount = posted();
    await stopGateway(child);
    // The reference again: on a shared machine one slow moment makes a flattering ratio. The faster run counts.
    const again = await runFloor();
    const fastest = again.seconds < floor.seconds ? again : floor;
    return {
      mails: MAILS, floorSeconds: fastest.seconds, floorRuns: [floor.seconds, again.seconds], floorRssMiB: Math.min(floor.peakRssMiB, again.peakRssMiB),
      floorSinceSpawnSeconds: Math.min(floor.sinceSpawnSeconds ?? Number.NaN, again.sinceSpawnSeconds ?? Number.NaN),
      floorCpuSeconds: fastest.cpuSeconds, floorMainCpuSeconds: fastest.mainCpuSeconds, postingFloor: posting, gatewaySeconds, storedSeconds, firstStoredSeconds, firstStoredMails, peakRssMiB: gatewayPeakRssMiB,
      gatewayCpuSeconds, gatewayMainCpuSeconds, dovecotCpuSeconds, platformCpuSeconds, posted: postedCount,
    };
  } finally {
    if (child) await stopGateway(child);
    await sandbox.close();
    await teardown();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) reportBacklog(await benchEmailBacklog());
