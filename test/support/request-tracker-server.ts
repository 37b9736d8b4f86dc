/**
 * Starts one real Request Tracker 5 (Debian 12's `request-tracker5` with
 * `rt5-db-sqlite` and `rt5-standalone`) on a free loopback port, with its
 * site config, SQLite database, Mason cache, logs and outgoing mail in a temp
 * folder; used by ./request-tracker-global-setup.ts. What it takes:
 *
 * - Not installed: scripts/install-request-tracker (as root).
 * - `RT_SITE_CONFIG=<file>` and `RT_SITE_CONFIG_DIR=<empty folder>`: without
 *   the second, Debian's /etc/request-tracker5/RT_SiteConfig.d (its database,
 *   syslog, WebPath /rt) overrides ours.
 * - `rt-setup-database-5 --action init` makes the database (~2 s), then
 *   ./request-tracker-seed.pl (~2 s) adds the users, their tokens and rights.
 * - The package's `rt-server` (libexec, not on PATH; Starlet, prefork) on
 *   127.0.0.1 only; REST2 answers about 1 s later. Its own SIGINT handler
 *   chowns /var/lib/request-tracker5 when root, so it is stopped with SIGTERM
 *   (its whole process group).
 * - Outgoing mail goes to <dir>/outgoing-mail.txt ($MailCommand 'testfile').
 * - $Timezone stays RT's default, US/Eastern (not UTC, on purpose): RT reads
 *   the dates in TicketSQL in the user's time zone.
 * - A vitest killed before its teardown leaves a server and a folder: the
 *   next start kills and removes those whose owner process is gone.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ensureInstalled, pidAlive } from './installed-server.ts';
import { freePort } from './ports.ts';

export const RT_ROOT = '/usr/share/request-tracker5';
const RT_SERVER = `${RT_ROOT}/libexec/rt-server`;
const SETUP_DATABASE = '/usr/sbin/rt-setup-database-5';
const PREFIX = 'threadgate-rt-';
const HOST = '127.0.0.1';
const READY_TIMEOUT_MS = 60_000;
const SEED = join(import.meta.dirname, 'request-tracker-seed.pl');
const INSTALL = join(import.meta.dirname, '../../scripts/install-request-tracker');

/** What the seed script prints: who the tests act as (tokens for `Authorization: token <t>`). */
export interface RequestTrackerSeed {
  root_id: number;
  root_name: string;
  root_password: string;
  gateway_token: string;
  gateway_id: number;
  gateway_name: string;
  gateway_email: string;
  agent_token: string;
  agent_id: number;
  agent_name: string;
  agent_email: string;
  customer_token: string;
  customer_id: number;
  customer_name: string;
  customer_email: string;
  outsider_token: string;
  outsider_id: number;
  outsider_name: string;
}

export interface RunningRequestTracker {
  /** e.g. http://127.0.0.1:40123 (REST2 below /REST/2.0). */
  url: string;
  seed: RequestTrackerSeed;
  dir: string;
  stop(): Promise<void>;
}

function installed(): boolean {
  const status = spawnSync('dpkg-query', ['-W', '-f=${Status}', 'request-tracker5', 'rt5-db-sqlite', 'rt5-standalone'], { encoding: 'utf8' }).stdout;
  return status === 'install ok installed'.repeat(3) && existsSync(RT_SERVER) && existsSync(SETUP_DATABASE);
}

/** Kills the servers and removes the folders of earlier runs whose vitest process is gone. */
function cleanStale(): void {
  for (const name of readdirSync(tmpdir()).filter((n) => n.startsWith(PREFIX))) {
    const dir = join(tmpdir(), name);
    const ownerFile = join(dir, 'owner.json');
    if (!existsSync(ownerFile)) continue;
    let owner: { vitest?: number; server?: number } = {};
    try { owner = JSON.parse(readFileSync(ownerFile, 'utf8')); } catch {}
    if (owner.vitest !== undefined && pidAlive(owner.vitest)) continue;
    if (owner.server !== undefined && pidAlive(owner.server)) try { process.kill(-owner.server, 'SIGKILL'); } catch {}
    rmSync(dir, { recursive: true, force: true });
  }
}

function siteConfig(dir: string, port: number): string {
  const q = (s: string) => `'${s.replace(/[\\']/g, '\\$&')}'`;
  return `# Written by test/support/request-tracker-server.ts
Set($rtname, 'threadgate-test');
Set($Organization, 'threadgate.test');
Set($DatabaseType, 'SQLite');
Set($DatabaseName, ${q(join(dir, 'rtdb'))});
Set($WebDomain, '${HOST}');
Set($WebPort, ${port});
Set($WebPath, '');
Set($WebBaseURL, 'http://${HOST}:${port}');
Set($CanonicalizeRedirectURLs, 0);
Set($CorrespondAddress, 'support@example.test');
Set($CommentAddress, 'support-comment@example.test');
Set($OwnerEmail, 'rt-owner@example.test');
Set($MailCommand, 'testfile');
$Mail::Mailer::testfile::config{outfile} = ${q(join(dir, 'outgoing-mail.txt'))};
Set($Timezone, 'US/Eastern');
Set($LogToSyslog, undef);
Set($LogToSTDERR, 'error');
Set($LogDir, ${q(join(dir, 'log'))});
Set($LogToFile, 'info');
Set($LogToFileNamed, 'rt.log');
$RT::MasonDataDir = ${q(join(dir, 'mason'))};
$RT::MasonSessionDir = ${q(join(dir, 'sessions'))};
1;
`;
}

export async function startRequestTracker(): Promise<RunningRequestTracker> {
  ensureInstalled('Request Tracker', INSTALL, installed);
  cleanStale();
  const dir = mkdtempSync(join(tmpdir(), PREFIX));
  for (const sub of ['site.d', 'log', 'mason', 'sessions']) mkdirSync(join(dir, sub));
  writeFileSync(join(dir, 'owner.json'), JSON.stringify({ vitest: process.pid }));
  const port = await freePort(HOST);
  const config = join(dir, 'RT_SiteConfig.pm');
  writeFileSync(config, siteConfig(dir, port));
  const env = { ...process.env, RT_SITE_CONFIG: config, RT_SITE_CONFIG_DIR: join(dir, 'site.d') };

  let server: ChildProcess | undefined;
  const stop = async () => {
    if (server?.pid !== undefined && server.exitCode === null && server.signalCode === null) {
      const exited = new Promise((resolve) => server!.once('exit', resolve));
      try { process.kill(-server.pid, 'SIGTERM'); } catch {}
      if ((await Promise.race([exited, sleep(5_000, 'late')])) === 'late') try { process.kill(-server.pid, 'SIGKILL'); } catch {}
    }
    if (!process.env.THREADGATE_RT_DEBUG) rmSync(dir, { recursive: true, force: true });
  };
  try {
    const step = (what: string, args: string[], expect: RegExp) => {
      const run = spawnSync(args[0]!, args.slice(1), { cwd: dir, env, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
      const output = `${run.stdout ?? ''}${run.stderr ?? ''}`;
      writeFileSync(join(dir, 'log', `${what}.log`), output);
      if (run.status !== 0 || !expect.test(output)) {
        throw new Error(`Request Tracker ${what} failed (exit ${run.status}); ${join(dir, 'log', `${what}.log`)}:\n${output.split('\n').slice(-20).join('\n')}`);
      }
      return run.stdout;
    };
    step('setup-database', [SETUP_DATABASE, '--action', 'init', '--dba', '', '--dba-password', ''], /Done inserting data/);
    const seedOut = step('seed', ['perl', SEED], /^\{.*"gateway_token"/m);
    const seed = JSON.parse(seedOut.split('\n').find((l) => l.startsWith('{')) ?? '{}') as RequestTrackerSeed;

    const log = join(dir, 'log', 'server.err');
    server = spawn(RT_SERVER, ['--host', HOST, '--port', String(port), '--max-workers', '4'], {
      cwd: dir,
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true,
    });
    writeFileSync(join(dir, 'owner.json'), JSON.stringify({ vitest: process.pid, server: server.pid }));
    let stderr = '';
    server.stderr?.on('data', (chunk: Buffer) => {
      appendFileSync(log, chunk);
      stderr = (stderr + chunk.toString('utf8')).slice(-4_000);
    });
    const url = `http://${HOST}:${port}`;
    const deadline = Date.now() + READY_TIMEOUT_MS;
    for (;;) {
      const status = await fetch(`${url}/REST/2.0/rt`, { headers: { authorization: `token ${seed.gateway_token}` } }).then((r) => r.status, () => 0);
      if (status === 200) break;
      if (server.exitCode !== null || Date.now() > deadline) throw new Error(`Request Tracker did not start (exit ${server.exitCode}, last status ${status}):\n${stderr}`);
      await sleep(100);
    }
    return { url, seed, dir, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
