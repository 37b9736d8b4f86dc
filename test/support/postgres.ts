/**
 * The run's PostgreSQL cluster (./postgres-global-setup.ts starts it on first
 * use) as test files see it: a fresh, empty database per call.
 *
 *   const url = await postgresDatabase();     // postgres://…/tg_<random>
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';

async function control(path: string): Promise<Record<string, unknown>> {
  const res = await fetch(`${inject('postgresControl')}${path}`, { method: 'POST' });
  if (!res.ok) throw new Error(`the test PostgreSQL cluster: ${path} answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
}

/** A new empty database on the run's cluster; its URL. */
export async function postgresDatabase(): Promise<string> {
  const { url } = (await control('/ensure')) as { url: string };
  const name = `tg_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`create database "${name}"`);
  } finally {
    await client.end();
  }
  return url.replace(/\/postgres$/, `/${name}`);
}

/** Stops the cluster hard (`pg_ctl stop -m immediate`): every connection drops. */
export const killPostgres = async (): Promise<void> => void (await control('/kill'));
/** Starts it again on the same port, with its data. */
export const restartPostgres = async (): Promise<void> => void (await control('/start'));
