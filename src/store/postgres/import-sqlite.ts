/**
 * Copying a SQLite store into an empty PostgreSQL one (`threadgate migrate
 * --from sqlite:PATH`): the move from one gateway to replicas without losing
 * the connectors' cursors, the thread map, the delivery log and the dedup
 * keys — starting a PostgreSQL store empty would re-read mailboxes and post
 * old mail again.
 *
 * The source is opened read-only and must carry every SQLite migration of
 * this version (it is never migrated here: a copy does not change what it
 * copies). It is read in one read transaction, a consistent snapshot even if
 * a gateway still writes, in rowid pages. The target is migrated, then
 * written in ONE transaction that first locks the copied tables (EXCLUSIVE:
 * a replica started by mistake waits instead of writing in between), checks
 * they are all empty and that both sides have the same columns, copies the
 * rows in foreign-key order with multi-row INSERTs, and moves every serial
 * sequence past the copied ids. Any refusal or failure rolls it all back.
 * The file store's bytes come along (a link made before the move still
 * downloads after it: its key is in connector_state, copied too).
 * `leases` is runtime state of running replicas and is not copied.
 */
import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import pg from 'pg';
import { StoreImportError } from '../errors.ts';
import { migrationStatus } from '../migrations.ts';
import { applyPgMigrations } from './pg-migrations.ts';
import { PG_TYPES } from './pg-sql.ts';
import { pgValue } from './pg-value.ts';
import { redactUrl } from './redact-url.ts';

interface CopiedTable {
  name: string;
  /** The PostgreSQL column that holds SQLite's rowid (it has no column of its own there). */
  rowidAs?: string;
  /** Rows per page and INSERT when they are large (files' bytes), below MAX_ROWS_PER_INSERT. */
  pageRows?: number;
}

/** Parents before children (foreign keys); `leases` stays behind. */
export const COPIED_TABLES: readonly CopiedTable[] = [
  { name: 'channel_registrations' },
  { name: 'connector_state' },
  { name: 'jobs' },
  { name: 'deliveries' },
  { name: 'threads' },
  { name: 'inbound_messages' },
  { name: 'skipped_inbound' },
  { name: 'thread_references', rowidAs: 'seq' },
  { name: 'delivery_attempts' },
  { name: 'inbound_attempts' },
  { name: 'proxy_message_posts' },
  { name: 'delivery_receipts' },
  // Up to a connector's per-file limit each (megabytes): a few per INSERT, so a page does not fill the memory.
  { name: 'files', pageRows: 8 },
];

/** PostgreSQL's limit of bound parameters per statement. */
const MAX_PARAMS = 65_535;
/** Rows per INSERT (and per page read from SQLite), below that limit for any table. */
const MAX_ROWS_PER_INSERT = 1_000;
/** How long the copy waits for another session's hold on a table before giving up. */
const LOCK_TIMEOUT = '10s';

export interface ImportSqliteOptions {
  /** The SQLite store file. */
  from: string;
  /** The PostgreSQL store, as `store.url` / `store.ssl` name it. */
  to: { url: string; ssl?: pg.ConnectionConfig['ssl'] };
  /** PostgreSQL's migrations (default migrations/postgres). */
  migrationsFolder?: string;
  /** SQLite's migrations the source must carry (default migrations/). */
  sqliteMigrationsFolder?: string;
  /** Told as each table is copied (inside the transaction: not yet committed). */
  onTable?: (table: string, rows: number) => void;
}

export interface TableCount {
  table: string;
  rows: number;
}

interface Plan {
  table: CopiedTable;
  columns: string[];
  /** Serial columns, whose sequences are moved past the copied values. */
  serials: string[];
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

export async function importSqliteStore(options: ImportSqliteOptions): Promise<TableCount[]> {
  const location = redactUrl(options.to.url);
  let source: Database.Database | undefined;
  const pool = new pg.Pool({
    connectionString: options.to.url,
    max: 1, // one connection: the migration's, then the copy's
    types: PG_TYPES,
    application_name: 'threadgate import',
    connectionTimeoutMillis: 10_000,
    ...(options.to.ssl !== undefined ? { ssl: options.to.ssl } : {}),
  });
  pool.on('error', () => {}); // an idle connection dropped: the next query fails with it
  try {
    source = openSource(options.from, options.sqliteMigrationsFolder);
    await applyPgMigrations(pool, options.migrationsFolder);
    const client = await pool.connect();
    let broken: Error | undefined;
    const onError = (err: Error) => (broken = err); // the server gone mid-copy: the query fails with it too
    client.on('error', onError);
    try {
      await client.query('begin');
      const counts = await copy(source, client, options.onTable);
      await client.query('commit');
      return counts;
    } catch (err) {
      await client.query('rollback').catch(() => {});
      throw err;
    } finally {
      client.off('error', onError);
      client.release(broken);
    }
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    const hint = (err as { code?: unknown }).code === '55P03' ? ' (another session holds these tables: is a replica running on this database?)' : '';
    throw new StoreImportError(`cannot copy ${options.from} into ${location}: ${reason}${hint}; no rows were copied`, { cause: err });
  } finally {
    source?.close();
    await pool.end().catch(() => {});
  }
}

function openSource(path: string, folder: string | undefined): Database.Database {
  if (!existsSync(path)) throw new StoreImportError('the file does not exist');
  let db: Database.Database | undefined;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
    const status = migrationStatus(db, folder);
    if (!status.current) {
      throw new StoreImportError(
        `the SQLite store has ${status.applied} of this version's ${status.known} migrations: run this version's ` +
          '`threadgate migrate` on it first (with store.path naming it), then copy it',
      );
    }
    return db;
  } catch (err) {
    db?.close();
    if (err instanceof StoreImportError) throw err;
    const code = (err as { code?: unknown }).code;
    const hint = code === 'SQLITE_NOTADB' ? ' (it is not a SQLite database)' : code === 'SQLITE_CORRUPT' ? ' (the file is damaged)' : '';
    throw new StoreImportError(`cannot read the SQLite store: ${(err as Error).message}${hint}`, { cause: err });
  }
}

async function copy(source: Database.Database, client: pg.PoolClient, onTable: ImportSqliteOptions['onTable']): Promise<TableCount[]> {
  const names = COPIED_TABLES.map((t) => t.name);
  await client.query(`set local lock_timeout = '${LOCK_TIMEOUT}'`);
  await client.query(`lock table ${names.map(quote).join(', ')} in exclusive mode`);

  const held: string[] = [];
  for (const name of names) {
    const { rows } = await client.query<{ n: number }>(`select count(*) as n from ${quote(name)}`);
    if ((rows[0]?.n ?? 0) > 0) held.push(`${name}: ${rows[0]!.n} row(s)`);
  }
  if (held.length > 0) throw new StoreImportError(`the PostgreSQL database is not empty (${held.join(', ')}); import only into an empty database`);

  const plans = await planTables(source, client);
  const counts: TableCount[] = [];
  source.exec('begin'); // one snapshot of the source from its first read on
  try {
    const autoincrement = new Map(
      (source.prepare('select name, seq from sqlite_sequence').all() as { name: string; seq: number }[]).map((r) => [r.name, r.seq]),
    );
    for (const plan of plans) {
      const rows = await copyTable(source, client, plan);
      for (const column of plan.serials) {
        // Past the copied values, and past ids SQLite handed out and then deleted (AUTOINCREMENT never reuses them).
        const floor = column === plan.table.rowidAs ? 0 : (autoincrement.get(plan.table.name) ?? 0);
        await client.query(
          `select setval(pg_get_serial_sequence($1, $2), greatest(coalesce((select max(${quote(column)}) from ${quote(plan.table.name)}), 0), $3::bigint) + 1, false)`,
          [plan.table.name, column, floor],
        );
      }
      counts.push({ table: plan.table.name, rows });
      onTable?.(plan.table.name, rows);
    }
  } finally {
    source.exec('commit');
  }
  return counts;
}

/** Each table's columns as PostgreSQL has them, checked against SQLite's; every difference is reported at once. */
async function planTables(source: Database.Database, client: pg.PoolClient): Promise<Plan[]> {
  const { rows } = await client.query<{ table_name: string; column_name: string; column_default: string | null }>(
    `select table_name, column_name, column_default from information_schema.columns
      where table_schema = current_schema() and table_name = any($1) and is_generated = 'NEVER' order by table_name, ordinal_position`,
    [COPIED_TABLES.map((t) => t.name)],
  );
  const problems: string[] = [];
  const plans = COPIED_TABLES.map((table) => {
    const pgColumns = rows.filter((r) => r.table_name === table.name);
    const sqliteColumns = (source.pragma(`table_info(${quote(table.name)})`) as { name: string }[]).map((c) => c.name);
    const columns = pgColumns.map((c) => c.column_name);
    const onlyPg = columns.filter((c) => c !== table.rowidAs && !sqliteColumns.includes(c));
    const onlySqlite = sqliteColumns.filter((c) => !columns.includes(c));
    if (columns.length === 0) problems.push(`${table.name}: no such table in PostgreSQL`);
    else if (sqliteColumns.length === 0) problems.push(`${table.name}: no such table in SQLite`);
    else {
      if (onlyPg.length > 0) problems.push(`${table.name}: columns only in PostgreSQL: ${onlyPg.join(', ')}`);
      if (onlySqlite.length > 0) problems.push(`${table.name}: columns only in SQLite: ${onlySqlite.join(', ')}`);
    }
    const serials = pgColumns.filter((c) => c.column_default?.startsWith('nextval(') === true).map((c) => c.column_name);
    return { table, columns, serials };
  });
  if (problems.length > 0) throw new StoreImportError(`the two schemas differ (${problems.join('; ')})`);
  return plans;
}

/** Keyset pages by rowid from SQLite, each one multi-row INSERT into PostgreSQL; the number of rows copied. */
async function copyTable(source: Database.Database, client: pg.PoolClient, { table, columns }: Plan): Promise<number> {
  const perInsert = Math.max(1, Math.min(table.pageRows ?? MAX_ROWS_PER_INSERT, Math.floor(MAX_PARAMS / columns.length)));
  const selected = columns.map((c) => (c === table.rowidAs ? `rowid as ${quote(c)}` : quote(c)));
  const page = source.prepare(`select rowid, ${selected.join(', ')} from ${quote(table.name)} where rowid > ? order by rowid limit ?`).raw(true);
  const into = `insert into ${quote(table.name)} (${columns.map(quote).join(', ')}) values `;
  let after = Number.MIN_SAFE_INTEGER;
  let copied = 0;
  for (;;) {
    const rows = page.all(after, perInsert) as unknown[][];
    if (rows.length === 0) return copied;
    const values: unknown[] = [];
    const tuples = rows.map((row) => {
      const first = values.length;
      for (const value of row.slice(1)) values.push(pgValue(value));
      return `(${columns.map((_, i) => `$${first + i + 1}`).join(', ')})`;
    });
    await client.query(into + tuples.join(', '), values);
    copied += rows.length;
    after = rows.at(-1)![0] as number;
  }
}
