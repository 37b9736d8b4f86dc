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
 * A write known by name, with plain arguments and a plain result (both structured-cloneable): what the SQLite
 * store can run in its writer thread, off the event loop (sqlite/writer-thread.ts). `run` must depend on nothing
 * but its transaction and its arguments. Every backend can run it in place, as `write((tx) => run(tx, args))`.
 */
export interface WriteCommand<A, R> {
  readonly name: string;
  run(tx: Repos, args: A): Promise<R>;
}

/** Where the writer thread finds the commands: a module exporting `WRITE_COMMANDS`, every command by its name. */
export interface WriteCommandsModule {
  WRITE_COMMANDS: Readonly<Record<string, WriteCommand<never, unknown>>>;
}

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
   * alone.
   */
  write<T>(fn: (tx: Repos) => T | Promise<T>): Promise<T>;
  /**
   * Runs a named write: in the SQLite writer thread when the store has one (grouped with that thread's writes),
   * otherwise as `write`. Resolves after the COMMIT that holds it. `onCommit` is what a write's commit listener is
   * to a function write (`tx.afterCommit`): told the result once the write is stored, undefined when it was rolled
   * back, in commit order with every other write's listeners, before the promise settles.
   */
  command<A, R>(command: WriteCommand<A, R>, args: A, onCommit?: (result: R | undefined) => void): Promise<R>;
  /** Applies pending migrations. */
  migrate(): Promise<MigrationStatus>;
  migrationStatus(): Promise<MigrationStatus>;
  /** Resolves when the store answers a trivial query (readiness). */
  ping(): Promise<void>;
  /** Commits the writes still waiting, then closes. */
  close(): Promise<void>;
}

export type { Repos };
