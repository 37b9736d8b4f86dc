/**
 * A throwaway PostgreSQL 15 cluster from Debian's binaries
 * (scripts/install-postgres): `initdb` into a temp folder as the `postgres`
 * user (initdb refuses root), `pg_ctl start` on a free loopback port with its
 * socket in that folder, `fsync` left on (the store's durability is what the
 * tests are about). Stopped with `-m immediate` and the folder removed.
 * Each test file gets a database of its own (`createDatabase`).
 */
import { execFile } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './ports.ts';

const run = promisify(execFile);
export const PG_BIN = '/usr/lib/postgresql/15/bin';
const SUPERUSER = 'threadgate';
const PASSWORD = 'threadgate-test';

export interface RunningPostgres {
  host: string;
  port: number;
  dir: string;
  /** `postgres://…/<database>` for the superuser. */
  url(database: string): string;
  /** Creates an empty database and answers its URL. */
  createDatabase(name: string): Promise<string>;
  /** `pg_ctl stop -m immediate` (a crash, as far as the cluster knows); `start` brings it back on the same port. */
  kill(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** Runs a PostgreSQL binary as `postgres` when we are root (initdb and postgres refuse root), else as ourselves. */
async function asOwner(binary: string, args: string[]): Promise<void> {
  const command = userInfo().uid === 0 ? 'runuser' : join(PG_BIN, binary);
  const argv = userInfo().uid === 0 ? ['-u', 'postgres', '--', join(PG_BIN, binary), ...args] : args;
  await run(command, argv, { maxBuffer: 16 * 1024 * 1024 });
}

/** `settings`: more `-c name=value` for the server (a benchmark's pg_stat_statements). */
export async function startPostgres(settings: readonly string[] = []): Promise<RunningPostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'tg-postgres-'));
  const data = join(dir, 'data');
  const pwfile = join(dir, 'pw');
  writeFileSync(pwfile, `${PASSWORD}\n`);
  if (userInfo().uid === 0) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
    chownSync(pwfile, Number(stdout.trim()), Number(gid.trim()));
  }
  chmodSync(dir, 0o755);
  await asOwner('initdb', ['-D', data, '-U', SUPERUSER, `--pwfile=${pwfile}`, '-A', 'scram-sha-256', '-E', 'UTF8', '--no-locale']);
  const host = '127.0.0.1';
  const port = await freePort(host);
  const options = `-p ${port} -c listen_addresses=${host} -k ${dir} -c max_connections=200 -c shared_buffers=64MB${settings.map((x) => ` -c ${x}`).join('')}`;
  const start = () => asOwner('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-w', '-t', '60', '-o', options, 'start']);
  await start();
  const url = (database: string) => `postgres://${SUPERUSER}:${PASSWORD}@${host}:${port}/${database}`;
  let stopped = false;
  return {
    host,
    port,
    dir,
    url,
    async createDatabase(name) {
      const client = new pg.Client({ connectionString: url('postgres') });
      await client.connect();
      try {
        await client.query(`create database "${name}"`);
      } finally {
        await client.end();
      }
      return url(name);
    },
    kill: () => asOwner('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']),
    start,
    async stop() {
      if (stopped) return;
      stopped = true;
      await asOwner('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']).catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
