/**
 * Starts one real Redmine (Debian 12's `redmine` + `redmine-sqlite`) with its
 * SQLite database, config, logs and cache in a temp folder, on a free
 * loopback port; used by ./redmine-global-setup.ts. The Debian package's
 * pitfalls, each handled here:
 *
 * - Installed but half-configured (bundler in its postinst): run
 *   scripts/install-redmine, which repairs and finishes it.
 * - Debian's Redmine is multi-tenant: `REDMINE_INSTANCE=<name>` reads
 *   /usr/share/redmine/instances/<name>/{config,tmp,log,files}. Ours is a
 *   symlink there to the temp folder (removed at teardown, or by the next
 *   run when this one died); `DATABASE_URL` also names the database file.
 * - `db:migrate` and `redmine:load_default_data` run in separate processes,
 *   each checked by exit status and output; the language is passed
 *   (`REDMINE_LANG=en`).
 * - The bundle has no web server: `RUBYOPT=-rwebrick bin/rails server`.
 * - A stale pid file stops `rails server` from starting: removed first.
 * - Settings (REST API on, login required), the users and their API keys are
 *   made by `rails runner` (./redmine-seed.rb) before the server starts.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ensureInstalled, pidAlive } from './installed-server.ts';
import { freePort } from './ports.ts';

export const REDMINE_ROOT = '/usr/share/redmine';
const INSTANCES = '/var/lib/redmine';
const PREFIX = 'threadgate-test-';
const HOST = '127.0.0.1';
const READY_TIMEOUT_MS = 60_000;
const SEED = join(import.meta.dirname, 'redmine-seed.rb');
const INSTALL = join(import.meta.dirname, '../../scripts/install-redmine');

/** What the seed script prints. */
export interface RedmineSeed {
  admin_key: string;
  gateway_key: string;
  gateway_id: number;
  gateway_login: string;
  customer_key: string;
  customer_id: number;
  customer_login: string;
  manager_role_id: number;
  reporter_role_id: number;
  closed_status_id: number;
  open_status_id: number;
}

export interface RunningRedmine {
  url: string;
  seed: RedmineSeed;
  dir: string;
  stop(): Promise<void>;
}

/** Installs (or finishes installing) Redmine when it is not usable yet. */
function installRedmine(): void {
  const ok = () => spawnSync('dpkg-query', ['-W', '-f=${Status}', 'redmine'], { encoding: 'utf8' }).stdout === 'install ok installed' && existsSync(`${INSTANCES}/Gemfile.lock`);
  ensureInstalled('Redmine', INSTALL, ok);
}

/** Removes the instances (and kills the servers) of earlier runs whose vitest process is gone. */
function cleanStale(): void {
  if (!existsSync(INSTANCES)) return;
  for (const name of readdirSync(INSTANCES).filter((n) => n.startsWith(PREFIX))) {
    const owner = Number(name.slice(PREFIX.length).split('-')[0]);
    if (Number.isInteger(owner) && pidAlive(owner)) continue;
    const link = join(INSTANCES, name);
    const target = lstatSync(link).isSymbolicLink() ? readlinkSync(link) : undefined;
    const pidFile = target && join(target, 'tmp', 'pids', 'server.pid');
    if (pidFile && existsSync(pidFile)) {
      const pid = Number(readFileSync(pidFile, 'utf8').trim());
      if (pid > 0 && pidAlive(pid)) try { process.kill(-pid, 'SIGKILL'); } catch { try { process.kill(pid, 'SIGKILL'); } catch {} }
    }
    rmSync(link, { force: true });
    if (target?.startsWith(tmpdir())) rmSync(target, { recursive: true, force: true });
  }
}

export async function startRedmine(): Promise<RunningRedmine> {
  installRedmine();
  cleanStale();
  const dir = mkdtempSync(join(tmpdir(), 'threadgate-redmine-'));
  const name = `${PREFIX}${process.pid}-${randomBytes(3).toString('hex')}`;
  const link = join(INSTANCES, name);
  for (const sub of ['config', 'tmp/pids', 'tmp/cache', 'log', 'files', 'public/plugin_assets']) mkdirSync(join(dir, sub), { recursive: true });
  const database = join(dir, 'redmine.sqlite3');
  writeFileSync(join(dir, 'config', 'database.yml'), `production:\n  adapter: sqlite3\n  database: ${database}\n  timeout: 10000\n`);
  writeFileSync(join(dir, 'config', 'secret_key.txt'), `${randomBytes(32).toString('hex')}\n`);
  try {
    symlinkSync(dir, link);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`The Redmine tests add an instance of Debian's Redmine (${link}) and need to write ${INSTANCES}: run them as root. (${(err as Error).message})`);
  }
  const env = {
    ...process.env,
    RAILS_ENV: 'production',
    REDMINE_INSTANCE: name,
    DATABASE_URL: `sqlite3:${database}`,
    REDMINE_LANG: 'en',
    SCHEMA: '/dev/null',
  };
  let server: ChildProcess | undefined;
  const stop = async () => {
    if (server?.pid !== undefined && server.exitCode === null && server.signalCode === null) {
      const exited = new Promise((resolve) => server!.once('exit', resolve));
      try { process.kill(-server.pid, 'SIGTERM'); } catch {}
      if ((await Promise.race([exited, sleep(5_000, 'late')])) === 'late') try { process.kill(-server.pid, 'SIGKILL'); } catch {}
    }
    rmSync(link, { force: true });
    if (!process.env.THREADGATE_REDMINE_DEBUG) rmSync(dir, { recursive: true, force: true });
  };
  try {
    const step = (what: string, args: string[], expect: RegExp) => {
      const run = spawnSync(args[0]!, args.slice(1), { cwd: REDMINE_ROOT, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
      const output = `${run.stdout ?? ''}${run.stderr ?? ''}`;
      writeFileSync(join(dir, 'log', `${what}.log`), output);
      if (run.status !== 0 || !expect.test(output)) {
        throw new Error(`Redmine ${what} failed (exit ${run.status}); ${join(dir, 'log', `${what}.log`)}:\n${output.split('\n').slice(-20).join('\n')}`);
      }
      return run.stdout;
    };
    step('db-migrate', ['bin/rake', 'db:migrate'], /migrated/);
    step('load-default-data', ['bin/rake', 'redmine:load_default_data'], /Default configuration data loaded/);
    const seedOut = step('seed', ['bin/rails', 'runner', SEED], /^\{.*"admin_key"/m);
    const seed = JSON.parse(seedOut.split('\n').find((l) => l.startsWith('{')) ?? '{}') as RedmineSeed;

    const port = await freePort(HOST);
    const pidFile = join(dir, 'tmp', 'pids', 'server.pid');
    rmSync(pidFile, { force: true });
    const log = join(dir, 'log', 'server.out');
    writeFileSync(log, '');
    server = spawn('bin/rails', ['server', '-b', HOST, '-p', String(port), '-P', pidFile, '-e', 'production'], {
      cwd: REDMINE_ROOT,
      env: { ...env, RUBYOPT: '-rwebrick' },
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true,
    });
    let stderr = '';
    server.stderr?.on('data', (chunk: Buffer) => void (stderr = (stderr + chunk.toString('utf8')).slice(-4_000)));
    const url = `http://${HOST}:${port}`;
    const deadline = Date.now() + READY_TIMEOUT_MS;
    for (;;) {
      const status = await fetch(`${url}/users/current.json`).then((r) => r.status, () => 0);
      if (status === 401) break;
      if (server.exitCode !== null || Date.now() > deadline) throw new Error(`Redmine did not start (exit ${server.exitCode}, last status ${status}):\n${stderr}`);
      await sleep(100);
    }
    return { url, seed, dir, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
