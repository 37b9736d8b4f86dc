/**
 * The store as the rest of threadgate sees it: asynchronous and
 * backend-neutral. Writes go through `write`, one atomic unit each (the
 * stored message and its job together: the transactional outbox), resolved
 * only after the COMMIT that holds it; reads go through `read`, which sees
 * committed data only. The SQLite backend is database.ts, the PostgreSQL one
 * postgres/pg-store.ts.
 */
import type { MigrationStatus } from './migrations.ts';
import type { Repos } from './repos.ts';

export type StoreBackend = 'sqlite' | 'postgres';

/**
 * Jobs of `kind` (in `lane`, for a kind with lanes) were queued by another process; the lease `lease` was given back;
 * another process asked the connector `poller`'s poll for a turn; or `all`: something may have been missed, look at
 * everything.
 */
export type Wakeup = { kind: string; lane: string | null } | { lease: string } | { poller: string } | { all: true };

export interface Store {
  readonly backend: StoreBackend;
  /** Where the data lives: a file path (a URL without its password for a server). */
  readonly location: string;
  /** Repositories over committed data. */
  readonly read: Repos;
  /**
   * Runs `fn` as one atomic write and resolves with its result after the
   * COMMIT that holds it. `fn` may await only the store (its `tx`): the
   * transaction it runs in is shared with other writes (group commit), and
   * `tx` is refused once `fn` settled. A write that throws is rolled back
   * alone. `fn` may run more than once (its first run rolled back, its
   * `afterCommit` listeners told so): when a neighbour in its group threw,
   * and on PostgreSQL after a conflict with another replica. So it
   * must be a function of its `tx` alone, its effects on the process left to
   * `afterCommit`. On PostgreSQL a failed statement aborts the transaction: a
   * write that catches a statement's error and goes on is refused
   * (`TG_STORE_TX_ABORTED`), never answered as stored.
   */
  write<T>(fn: (tx: Repos) => T | Promise<T>, options?: WriteOptions): Promise<T>;
  /** Round trips to the server so far: a statement sent while none awaited its answer (PostgreSQL; for metrics). */
  roundTrips?(): number;
  /** Applies pending migrations. */
  migrate(): Promise<MigrationStatus>;
  migrationStatus(): Promise<MigrationStatus>;
  /**
   * What other processes queued, gave back or asked for, told as it happens (PostgreSQL with `store.wakeups`,
   * postgres/pg-wakeups.ts); absent where no other process writes (SQLite) or nobody could tell.
   */
  readonly wakeups?: {
    subscribe(listener: (wakeup: Wakeup) => void): () => void;
    /** A job of `kind` (in `lane`) is queued, its write committed; without `kind`, jobs of any (given back, made due). */
    queued(kind?: string, lane?: string | null): void;
    /** Asks the connector `name`'s poll, on whichever process runs it, for a turn (its subscribers are told `{ poller }`). */
    wakePoller(name: string): Promise<void>;
  };
  /** Resolves when the store answers a trivial query (readiness). */
  ping(): Promise<void>;
  /** Commits the writes still waiting, then closes. */
  close(): Promise<void>;
}

export interface WriteOptions {
  /**
   * Writes of one batch name that follow one another in a group run at once on PostgreSQL, their statements
   * interleaved on the group's connection, so the group costs the round trips of one write, not of each
   * (docs/decisions/postgres-group-commit.md). Only for writes that touch rows of their own (a webhook's delivery and
   * job, a job's completion) and read what another write of the batch writes only through single statements (a
   * unique key's conflict, a take's check). SQLite runs them one after another, as every write.
   */
  batch?: string;
  /**
   * A caller outside waits for it (a webhook's answer): on PostgreSQL it opens a group on any free connection, where
   * the other writes keep one group open at a time for their batch name (and one for the writes of none) and fill
   * the next while it runs (docs/decisions/postgres-group-commit.md). SQLite commits every group on one connection.
   */
  urgent?: boolean;
}

export type { Repos };
