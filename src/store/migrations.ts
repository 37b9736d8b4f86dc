/**
 * Applying the SQL migrations drizzle-kit generated into migrations/, and
 * telling whether the database is at the newest one.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { StoreMigrationError } from './errors.ts';

export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../migrations', import.meta.url));

const MIGRATIONS_TABLE = '__drizzle_migrations';

interface Journal {
  entries: { idx: number; tag: string; when: number }[];
}

export function readJournal(folder: string = MIGRATIONS_FOLDER): Journal {
  return JSON.parse(readFileSync(`${folder}/meta/_journal.json`, 'utf8')) as Journal;
}

export interface MigrationStatus {
  applied: number;
  known: number;
  current: boolean;
}

export function applyMigrations(sqlite: Database.Database, folder: string = MIGRATIONS_FOLDER): MigrationStatus {
  try {
    migrate(drizzle(sqlite), { migrationsFolder: folder, migrationsTable: MIGRATIONS_TABLE });
  } catch (err) {
    throw new StoreMigrationError(`migrating the store failed: ${(err as Error).message}`, { cause: err });
  }
  return migrationStatus(sqlite, folder);
}

export function migrationStatus(sqlite: Database.Database, folder: string = MIGRATIONS_FOLDER): MigrationStatus {
  const known = readJournal(folder).entries.length;
  const exists = sqlite
    .prepare(`select 1 from sqlite_master where type = 'table' and name = ?`)
    .get(MIGRATIONS_TABLE);
  const applied = exists
    ? (sqlite.prepare(`select count(*) as n from ${MIGRATIONS_TABLE}`).get() as { n: number }).n
    : 0;
  return { applied, known, current: applied >= known };
}
