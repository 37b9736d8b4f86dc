/**
 * A throwaway PostgreSQL 15 cluster for scripts/try-replicas, from Debian's
 * binaries (postgresql-15; scripts/install-postgres): `initdb` into a folder
 * (as the `postgres` user when we are root: initdb and postgres refuse root),
 * `pg_ctl start` on a free loopback port with its socket in that folder, one
 * database, and `pg_ctl stop -m fast` at the end.
 */
import { execFile } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort, HOST, secret } from './common.ts';

const run = promisify(execFile);
export const PG_BIN = '/usr/lib/postgresql/15/bin';
const USER = 'threadgate';

export interface LocalPostgres {
  port: number;
  /** `postgres://threadgate:<password>@127.0.0.1:<port>/<database>` */
  url: string;
  /** The postmaster's pid, from its pid file. */
  pid: number;
  stop(): Promise<void>;
}

const asRoot = () => process.getuid?.() === 0;

/** Runs a PostgreSQL binary as `postgres` when we are root, else as ourselves. */
async function asOwner(binary: string, args: string[]): Promise<string> {
  const [command, argv] = asRoot() ? ['runuser', ['-u', 'postgres', '--', join(PG_BIN, binary), ...args]] : [join(PG_BIN, binary), args];
  const { stdout } = await run(command, argv, { maxBuffer: 16 * 1024 * 1024 });
  return stdout;
}

/** Initialises a cluster in `dir` (a new folder made here), starts it and creates `database`. */
export async function startPostgres(dir: string, database: string): Promise<LocalPostgres> {
  if (!existsSync(join(PG_BIN, 'initdb'))) {
    throw new Error(`PostgreSQL 15 is not installed here (no ${PG_BIN}/initdb): scripts/install-postgres installs it (apt-get install postgresql-15)`);
  }
  mkdirSync(dir);
  const data = join(dir, 'data');
  const password = secret();
  const pwfile = join(dir, 'pw');
  writeFileSync(pwfile, `${password}\n`);
  if (asRoot()) {
    const [uid, gid] = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])]);
    for (const path of [dir, pwfile]) chownSync(path, Number(uid.stdout.trim()), Number(gid.stdout.trim()));
  }
  chmodSync(dir, 0o755);
  await asOwner('initdb', ['-D', data, '-U', USER, `--pwfile=${pwfile}`, '-A', 'scram-sha-256', '-E', 'UTF8', '--no-locale']);
  const port = await freePort();
  const options = `-p ${port} -c listen_addresses=${HOST} -k ${dir}`;
  await asOwner('pg_ctl', ['-D', data, '-l', join(dir, 'postgres.log'), '-w', '-t', '60', '-o', options, 'start']);
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await asOwner('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
  };
  try {
    const client = new pg.Client({ host: HOST, port, user: USER, password, database: 'postgres' });
    await client.connect();
    try {
      await client.query(`create database "${database}"`);
    } finally {
      await client.end();
    }
    const pid = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return { port, url: `postgres://${USER}:${password}@${HOST}:${port}/${database}`, pid, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
