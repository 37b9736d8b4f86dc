/**
 * `npm run bench:email`: 1,000 customer mails submitted over SMTP to a real
 * OpenSMTPD, delivered by LMTP into a real Dovecot, read by a gateway child
 * process over IMAP IDLE and posted to a real sandbox — mails per second from
 * the first SMTP submission to the last platform POST, and the gateway's peak
 * RSS (VmHWM). Uses the test suite's mail-server setup (root, Debian's
 * dovecot-imapd dovecot-lmtpd dovecot-submissiond opensmtpd: scripts/install-mail-servers).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import nodemailer from 'nodemailer';
import type { TestProject } from 'vitest/node';
import { stringify } from 'yaml';
import { startSandbox } from '../../src/sandbox/index.ts';
import setupMailServers from '../../test/support/mail-global-setup.ts';
import type { MailServersInfo } from '../../test/support/mail-servers.ts';

const MAILS = Number(process.env.BENCH_MAILS ?? 1_000);
const SMTP_CONNECTIONS = 4;
const MAIN = join(import.meta.dirname, '../../src/cli/threadgate.js');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<void> {
  let info: MailServersInfo | undefined;
  const teardown = await setupMailServers({ provide: (_key: string, value: MailServersInfo) => void (info = value) } as unknown as TestProject);
  const dir = mkdtempSync(join(tmpdir(), 'tg-bench-email-'));
  const sandbox = await startSandbox({ port: 0 });
  let child: ReturnType<typeof spawn> | undefined;
  try {
    const mail = info as MailServersInfo;
    const support = `bench-${process.pid}@example.test`;
    writeFileSync(join(mail.usersDir, support), `${support}:{PLAIN}bench::::::\n`, { mode: 0o644 });
    const file = join(dir, 'threadgate.yaml');
    writeFileSync(
      file,
      stringify({
        platform: { url: sandbox.url, organization_id: sandbox.organizationId, token: sandbox.token },
        server: { port: 0 },
        store: { path: 'bench.db' },
        log: { level: 'warn' },
        connectors: [
          {
            name: 'mail', type: 'email', room_id: sandbox.roomId, address: support,
            imap: { host: mail.host, port: mail.imapPort, secure: false, user: support, password: 'bench' },
            smtp: { host: mail.host, port: mail.smtpPort, secure: false },
          },
        ],
      }),
    );
    child = spawn(process.execPath, [MAIN, 'serve', '--config', file], { stdio: ['ignore', 'ignore', 'inherit'] });
    const db = join(dir, 'bench.db');
    await waitFor(() => readyRow(db), 20_000);

    const transport = nodemailer.createTransport({ host: mail.host, port: mail.smtpPort, secure: false, pool: true, maxConnections: SMTP_CONNECTIONS, maxMessages: 50 /* OpenSMTPD allows 100 per session */ });
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: SMTP_CONNECTIONS * 2 }, async () => {
        while (next < MAILS) {
          const i = next++;
          await transport.sendMail({
            from: `Customer ${i} <customer${i}@customer.test>`,
            to: support,
            subject: `Question ${i}`,
            text: `Hello, this is question number ${i}.\n\nRegards,\nCustomer ${i}\n`,
          });
        }
      }),
    );
    const submitted = performance.now();
    transport.close();
    await waitFor(() => posted(db) >= MAILS, 300_000);
    const done = performance.now();
    const hwm = peakRssMiB(child.pid as number);
    const seconds = (done - started) / 1000;
    console.log(`node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB; Dovecot ${mail.versions.dovecot}, OpenSMTPD ${mail.versions.smtpd}`);
    console.log(`${MAILS} mails: SMTP submission took ${((submitted - started) / 1000).toFixed(2)} s; first submission → last platform POST ${seconds.toFixed(2)} s = ${(MAILS / seconds).toFixed(1)} mails/s`);
    console.log(`gateway peak RSS (VmHWM): ${hwm.toFixed(1)} MiB; posted ${posted(db)}, distinct ${distinct(db)}`);
    if (posted(db) !== MAILS || distinct(db) !== MAILS) process.exitCode = 1;
  } finally {
    child?.kill('SIGTERM');
    await sleep(500);
    await sandbox.close();
    await teardown();
    rmSync(dir, { recursive: true, force: true });
  }
}

function query(db: string, sql: string): number {
  const handle = new Database(db, { readonly: true, fileMustExist: true });
  try {
    return (handle.prepare(sql).get() as { n: number }).n;
  } finally {
    handle.close();
  }
}

/** The gateway is up once its connector is registered (the row exists). */
function readyRow(db: string): boolean {
  try {
    return query(db, `select count(*) as n from channel_registrations`) === 1;
  } catch {
    return false;
  }
}

const posted = (db: string) => query(db, `select count(*) as n from inbound_messages where status = 'posted'`);
const distinct = (db: string) => query(db, `select count(distinct external_id) as n from inbound_messages`);

function peakRssMiB(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmHWM:'));
  return Number(line?.replace(/\D+/g, '') ?? 0) / 1024;
}

async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await sleep(20);
  }
}

await main();
