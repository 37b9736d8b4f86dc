/**
 * Applying the SQL migrations drizzle-kit generated into migrations/, and
 * telling whether the database is at the newest one.
 *
 * drizzle's own files are read with its `readMigrationFiles`, and applied
 * exactly the way its SQLite migrator does (one transaction, the same
 * `__drizzle_migrations` bookkeeping), but without loading drizzle's query
 * builder: importing `drizzle-orm/better-sqlite3` costs about 200 MB of
 * resident memory in this version, for code the gateway never runs
 * (docs/benchmarks.md at 65810b0, "Memory: drizzle's runtime left out").
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type Database from 'better-sqlite3';
import { readMigrationFiles } from 'drizzle-orm/migrator';
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
    const migrations = readMigrationFiles({ migrationsFolder: folder });
    sqlite.exec(`create table if not exists "${MIGRATIONS_TABLE}" (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at numeric)`);
    const record = sqlite.prepare(`insert into "${MIGRATIONS_TABLE}" ("hash", "created_at") values (?, ?)`);
    const latest = sqlite.prepare(`select created_at from "${MIGRATIONS_TABLE}" order by created_at desc limit 1`);
    // IMMEDIATE: a second process (`migrate` beside `serve`) waits for the first and then sees its records.
    sqlite.transaction(() => {
      const last = latest.get() as { created_at: number | string } | undefined;
      for (const migration of migrations) {
        if (last !== undefined && Number(last.created_at) >= migration.folderMillis) continue;
        for (const statement of migration.sql) if (statement.trim() !== '') sqlite.exec(statement);
        record.run(migration.hash, migration.folderMillis);
      }
    }).immediate();
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
