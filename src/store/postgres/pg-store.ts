/**
 * The PostgreSQL store: the same `Store` as SQLite's (store.ts), over a
 * node-postgres pool, for several replicas on one database.
 *
 * Writes are committed in groups (pg-group-writer.ts): the writes asked for
 * in one event-loop turn share one transaction on a pooled connection (READ
 * COMMITTED), a few groups at once; each write is resolved after the COMMIT
 * that holds it returned — with PostgreSQL's default `synchronous_commit =
 * on`, after the commit record was flushed.
 * Replicas race where SQLite never could (two inserts of one dedup key, two
 * `ensure`s of one thread): the loser's unique violation, serialization
 * failure or deadlock rolls its transaction back and the write runs again
 * from the start — where it now finds the winner's row. So a write may run
 * more than once: it must be a function of its `tx` alone (as every write
 * is). Reads go through the pool and see committed data only.
 */
import pg from 'pg';
import { StoreClosedError, StoreOpenError, StoreTxAbortedError, StoreUnavailableError } from '../errors.ts';
import type { MigrationStatus } from '../migrations.ts';
import { Repos } from '../repos.ts';
import type { Store, WriteOptions } from '../store.ts';
import { TxSql } from '../tx-sql.ts';
import { DEFAULT_PG_MAX_GROUP, PgGroupWriter } from './pg-group-writer.ts';
import { applyPgMigrations, pgMigrationStatus } from './pg-migrations.ts';
import { ConnectionTraffic } from './connection-traffic.ts';
import { asUnavailable, isConflict, PG_TYPES, PgSql } from './pg-sql.ts';
import { PgWakeups } from './pg-wakeups.ts';
import { StatementMerger } from './statement-merger.ts';
import { CommittedAnyway } from './committed-anyway.ts';
import { redactUrl } from './redact-url.ts';

export interface PostgresStoreOptions {
  /** `postgres://user:password@host:5432/db` (libpq's URL form; `?sslmode=…` as node-postgres reads it). */
  url: string;
  /** Connections of this process's pool (default 10). */
  poolSize?: number;
  /** TLS, as node-postgres names it (`ssl: { ca, rejectUnauthorized, … }`); overrides the URL's sslmode. */
  ssl?: pg.ConnectionConfig['ssl'];
  /** Apply pending migrations on open (default true). */
  migrate?: boolean;
  migrationsFolder?: string;
  /** How often a write that lost a race with another is run again before its error is returned (default 5). */
  conflictRetries?: number;
  /** Prepare each statement once per connection (default true); off for PgBouncer before 1.21 in transaction mode. */
  preparedStatements?: boolean;
  /**
   * Connections that commit groups of writes at once (default 4, or `poolSize` if smaller; pg-group-writer.ts): the
   * writes of one event-loop turn share a transaction. 0: every write is a transaction of its own.
   */
  writeConnections?: number;
  /** Told about errors of idle pooled connections (a server restart); they are replaced on next use. */
  onIdleError?: (err: Error) => void;
  /** Tell other replicas of queued jobs and listen for theirs (default true; pg-wakeups.ts); off behind a pooler in transaction mode. */
  wakeups?: boolean;
  /** Told when the wake-ups' listening connection failed (it is opened again). */
  onWakeupsError?: (err: Error) => void;
}


const DEFAULT_POOL_SIZE = 10;
/**
 * Group commit's connections by default (or the pool's, if fewer): measured against 0, 1, 2 and 8; with two replicas
 * 2 each did worse than 4 (docs/decisions/postgres-group-commit.md).
 */
export const DEFAULT_WRITE_CONNECTIONS = 4;

export async function openPostgresStore(options: PostgresStoreOptions): Promise<Store> {
  const location = redactUrl(options.url);
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize ?? DEFAULT_POOL_SIZE,
    types: PG_TYPES,
    application_name: 'threadgate',
    connectionTimeoutMillis: 10_000,
    // Statements a write issues without awaiting each other go out back to back and are answered in order: a claim
    // opens its jobs' attempts in two round trips, not two a job (docs/benchmarks.md at 65810b0, "PostgreSQL:
    // statements in flight together"). Awaited one by one they run as before.
    pipeline: true,
    ...(options.ssl !== undefined ? { ssl: options.ssl } : {}),
  });
  const traffic = new ConnectionTraffic();
  pool.on('connect', (client) => traffic.watch(client));
  // An idle connection the server dropped must not take the process down; the pool replaces it.
  pool.on('error', (err) => options.onIdleError?.(err));
  const wakeups = options.wakeups === false ? undefined : new PgWakeups({ url: options.url, ...(options.ssl !== undefined ? { ssl: options.ssl } : {}), ...(options.onWakeupsError ? { onError: options.onWakeupsError } : {}) });
  wakeups?.watchPool(pool);
  const folder = options.migrationsFolder;
  try {
    if (options.migrate !== false) await applyPgMigrations(pool, folder);
    else await pgMigrationStatus(pool, folder);
  } catch (err) {
    await pool.end().catch(() => {});
    const reason = err instanceof Error ? err.message : String(err);
    throw new StoreOpenError(`cannot open the store at ${location}: ${reason}`, { cause: err });
  }
  const retries = options.conflictRetries ?? 5;
  const prepare = { prepare: options.preparedStatements ?? true };
  // Reads asked for side by side (the thread of each delivery a claim started) go out as one statement.
  const read = new Repos(new PgSql(pool, { ...prepare, merger: new StatementMerger(new PgSql(pool, prepare), { reads: true }), ordered: false }));
  let inFlight = 0;
  let drained: (() => void) | undefined;
  let closing: Promise<void> | undefined;

  /**
   * Runs `body` in a transaction on a pooled connection: committed when it resolves, rolled back when it throws.
   * `body` may send the COMMIT before it resolves (`commit`: once its writes sent all their statements); it goes out
   * behind them, pipelined, and what they answer decides: a failed statement turns it into a rollback.
   */
  async function transaction<T>(body: (client: pg.PoolClient, commit: () => void) => Promise<T>, begin = 'begin'): Promise<T> {
    const client = await pool.connect();
    let broken: Error | undefined;
    // The server going away under a checked-out connection is an 'error' event on it (unhandled, it would end the
    // process): the query under way fails with it anyway; the connection is dropped on release.
    const onError = (err: Error) => (broken = err);
    client.on('error', onError);
    let early: Promise<pg.QueryResult> | undefined;
    const commit = () => {
      if (early) return;
      early = client.query('commit');
      early.catch(() => {});
    };
    try {
      // Out with the body's first statements (pipeline mode), not a round trip of its own; a failure fails them too.
      const begun = client.query(begin);
      begun.catch(() => {});
      const value = await body(client, commit).catch(async (err: unknown) => {
        // A write failed on its own after it said it sent everything, and the COMMIT sent behind it stored the rest.
        const sent = early && (await early.catch(() => undefined));
        throw sent?.command === 'COMMIT' ? new CommittedAnyway(err) : err;
      });
      await begun;
      // A transaction a failed statement aborted answers its COMMIT with a rollback, not an error.
      const done = await (early ?? client.query('commit'));
      if (done.command === 'ROLLBACK') throw new StoreTxAbortedError('a statement of the transaction failed (its error was caught): nothing was stored');
      return value;
    } catch (err) {
      if (!(err instanceof CommittedAnyway)) await client.query('rollback').catch((rollbackErr: Error) => (broken = rollbackErr));
      throw err;
    } finally {
      client.off('error', onError);
      client.release(broken);
    }
  }

  /** One write in a transaction of its own; its commit listeners told its fate. */
  async function once<T>(fn: (tx: Repos) => T | Promise<T>): Promise<T> {
    let tx: TxSql | undefined;
    try {
      const value = await transaction(async (client, commit) => {
        const merger = new StatementMerger(new PgSql(client, prepare));
        // Once it sent all its statements, its COMMIT follows them (after what waits to be merged).
        tx = new TxSql(new PgSql(client, { ...prepare, merger }), () => {
          merger.flush();
          commit();
        });
        try {
          return await fn(new Repos(tx));
        } finally {
          tx.end();
        }
      });
      tx?.settle(true);
      return value;
    } catch (err) {
      if (err instanceof CommittedAnyway) {
        tx?.settle(true);
        throw err.cause;
      }
      tx?.settle(false);
      throw err;
    }
  }

  /** One write alone, run again (up to `retries` times) when it lost a race with another replica. */
  async function alone<T>(fn: (tx: Repos) => T | Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await once(fn);
      } catch (err) {
        // The server gone (a restart, a failover) is the store's condition, not this write's: 503, or a job that waits.
        const mapped = asUnavailable(err);
        if (mapped instanceof StoreUnavailableError) throw mapped;
        if (attempt >= retries || !isConflict(err)) throw err;
      }
    }
  }

  const connections = options.writeConnections ?? Math.min(DEFAULT_WRITE_CONNECTIONS, options.poolSize ?? DEFAULT_POOL_SIZE);
  const groups =
    connections > 0
      ? new PgGroupWriter({ transaction, prepare: prepare.prepare, connections, maxGroup: DEFAULT_PG_MAX_GROUP, alone })
      : undefined;

  return {
    backend: 'postgres',
    location,
    read,
    ...(wakeups ? { wakeups } : {}),
    async write<T>(fn: (tx: Repos) => T | Promise<T>, writeOptions?: WriteOptions): Promise<T> {
      if (closing) throw new StoreClosedError('the store is closed');
      inFlight += 1;
      try {
        return await (groups ? groups.write(fn, writeOptions) : alone(fn));
      } finally {
        inFlight -= 1;
        if (inFlight === 0) drained?.();
      }
    },
    roundTrips: () => traffic.roundTrips,
    migrate: (): Promise<MigrationStatus> => applyPgMigrations(pool, folder),
    migrationStatus: () => pgMigrationStatus(pool, folder),
    async ping() {
      await pool.query('select 1');
    },
    close: () =>
      (closing ??= (async () => {
        if (inFlight > 0) await new Promise<void>((resolve) => (drained = resolve));
        await wakeups?.close();
        await pool.end();
      })()),
  };
}
