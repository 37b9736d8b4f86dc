/**
 * PostgreSQL migrations: the `.sql` files of migrations/postgres/, applied in
 * name order, each once, recorded in `threadgate_migrations`. All pending ones
 * run in ONE transaction under a transaction-level advisory lock, so replicas
 * starting together on an empty database do not race: the first applies
 * them, the others wait for its commit and then find nothing to do.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { StoreMigrationError } from '../errors.ts';
import type { MigrationStatus } from '../migrations.ts';

export const PG_MIGRATIONS_FOLDER = fileURLToPath(new URL('../../../migrations/postgres', import.meta.url));

const TABLE = 'threadgate_migrations';
/** The advisory lock's key: any constant of ours (the ASCII of "tgmigrat"). */
const LOCK_KEY = '8387231849035194740';

interface MigrationFile {
  name: string;
  sql: string;
}

export function readPgMigrations(folder: string = PG_MIGRATIONS_FOLDER): MigrationFile[] {
  return readdirSync(folder)
    .filter((name) => name.endsWith('.sql'))
    .sort()
    .map((name) => ({ name, sql: readFileSync(`${folder}/${name}`, 'utf8') }));
}

export async function applyPgMigrations(pool: pg.Pool, folder?: string): Promise<MigrationStatus> {
  const migrations = readPgMigrations(folder);
  const client = await pool.connect();
  let broken: Error | undefined;
  const onError = (err: Error) => (broken = err); // the server gone mid-migration: the query fails with it too
  client.on('error', onError);
  try {
    await client.query('begin');
    await client.query(`select pg_advisory_xact_lock(${LOCK_KEY})`);
    await client.query(`create table if not exists ${TABLE} (name text primary key, applied_at bigint not null)`);
    const done = new Set((await client.query<{ name: string }>(`select name from ${TABLE}`)).rows.map((r) => r.name));
    for (const migration of migrations) {
      if (done.has(migration.name)) continue;
      await client.query(migration.sql);
      await client.query(`insert into ${TABLE} (name, applied_at) values ($1, $2)`, [migration.name, Date.now()]);
    }
    await client.query('commit');
  } catch (err) {
    await client.query('rollback').catch(() => {});
    throw new StoreMigrationError(`migrating the store failed: ${(err as Error).message}`, { cause: err });
  } finally {
    client.off('error', onError);
    client.release(broken);
  }
  return pgMigrationStatus(pool, folder);
}

export async function pgMigrationStatus(pool: pg.Pool, folder?: string): Promise<MigrationStatus> {
  const known = readPgMigrations(folder).length;
  const exists = await pool.query(`select 1 from information_schema.tables where table_schema = current_schema() and table_name = $1`, [TABLE]);
  const applied = exists.rowCount ? Number((await pool.query<{ n: string }>(`select count(*) as n from ${TABLE}`)).rows[0]?.n ?? 0) : 0;
  return { applied, known, current: applied >= known };
}
