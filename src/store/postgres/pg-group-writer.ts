/**
 * Group commit for the PostgreSQL store: the writes asked for during one
 * event-loop turn share one transaction on one pooled connection — one BEGIN,
 * one COMMIT and one flush of the server's log for all of them, instead of
 * two round trips and a flush each. At most `connections` groups are open at
 * once, each on its own connection; writes that arrive while all of them are
 * busy form the next groups. Urgent writes (store.ts `WriteOptions`: a
 * webhook, whose answer waits for it) open a group on any free connection.
 * The others have one group open at a time for each batch name, and one for
 * the writes of none, unless a full group of them waits: those that arrive
 * meanwhile make its next group fuller, and the connections stay free for
 * the urgent ones (docs/decisions/postgres-group-commit.md). A group of one
 * write is the store's single write (its retries after a conflict included).
 *
 * One write that throws must not fail its neighbours: the group's transaction
 * is rolled back (its writes' commit listeners told so), the one that threw
 * gets its error, and each of the others runs again alone, in order, in a
 * transaction of its own. A write that lost a race with another replica (a
 * conflict: store.ts) runs again alone too, with the store's retries, as does
 * every write of a group whose COMMIT the server refused. A write may thus run
 * more than once (store.ts), as on SQLite. When the server is gone
 * (StoreUnavailableError) every write of the group fails with that, as a
 * single write would.
 *
 * Writes of one batch name that follow one another in a group (store.ts
 * `WriteOptions`: a burst of webhooks, of completions) run at once on the
 * group's connection: their first statements go out together, then their
 * second ones, so a run of N such writes waits for the round trips of one,
 * not of N. The run ends when all of them settled, never earlier: a write
 * that throws rolls the group back only once its neighbours are done, so none
 * of them sends a statement outside the transaction. What they issue side by
 * side as merged statements (sql.ts `Mergeable`) goes out as one statement
 * for all of their rows (statement-merger.ts); when such a statement fails,
 * none of them is blamed and each runs again alone.
 */
import type pg from 'pg';
import { StoreUnavailableError } from '../errors.ts';
import { Repos } from '../repos.ts';
import type { WriteOptions } from '../store.ts';
import { TxSql } from '../tx-sql.ts';
import { CommittedAnyway } from './committed-anyway.ts';
import { asUnavailable, isConflict, PgSql } from './pg-sql.ts';
import { BEGIN_WITH_MERGED_PLANS, isSharedFailure, StatementMerger } from './statement-merger.ts';

export type PgWrite<T> = (tx: Repos) => T | Promise<T>;

/**
 * Runs `body` in a transaction on a pooled connection: committed when it resolves, rolled back when it throws;
 * `commit` sends the COMMIT before `body` resolved, behind the statements sent so far (pg-store.ts). `begin`: the
 * query that opens it (default `begin`).
 */
export type PgTransaction = <T>(body: (client: pg.PoolClient, commit: () => void) => Promise<T>, begin?: string) => Promise<T>;

export interface PgGroupWriterOptions {
  transaction: PgTransaction;
  /** Statements prepared once per connection (pg-sql.ts). */
  prepare: boolean;
  /** Groups committed at once, each on a pooled connection. */
  connections: number;
  /** Most writes in one group. */
  maxGroup: number;
  /** Runs one write in a transaction of its own, with the store's conflict retries. */
  alone: <T>(fn: PgWrite<T>) => Promise<T>;
}

interface Pending {
  fn: PgWrite<unknown>;
  /** Its batch name: consecutive writes of one name run at once. */
  batch: string | undefined;
  /** Someone waits for it (a webhook's answer): it opens a group on any free connection. */
  urgent: boolean;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

/** The write at `index` of the group threw `cause`: the group is rolled back. `outcomes`: each write's, as far as they ran. */
class WriteThrew extends Error {
  readonly index: number;
  readonly outcomes: readonly PromiseSettledResult<unknown>[];

  constructor(index: number, cause: unknown, outcomes: readonly PromiseSettledResult<unknown>[]) {
    super('a write of the group threw', { cause });
    this.index = index;
    this.outcomes = outcomes;
  }
}

export const DEFAULT_PG_MAX_GROUP = 64;
/** SQLSTATE of a statement run in a transaction an earlier failed statement aborted. */
const IN_FAILED_TRANSACTION = '25P02';

/** A statement refused because an earlier one of the transaction failed: the write that issued it is not to blame. */
const isAbortedByOther = (err: unknown): boolean => (err as { code?: unknown } | null)?.code === IN_FAILED_TRANSACTION;

export class PgGroupWriter {
  readonly #o: PgGroupWriterOptions;
  #queue: Pending[] = [];
  #open = 0;
  /** Groups open, by batch name (undefined: the writes of none). */
  readonly #openOf = new Map<string | undefined, number>();
  #scheduled = false;

  constructor(options: PgGroupWriterOptions) {
    this.#o = options;
  }

  write<T>(fn: PgWrite<T>, options: WriteOptions = {}): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ fn, batch: options.batch, urgent: options.urgent === true, resolve: resolve as (v: unknown) => void, reject });
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#scheduled || this.#open >= this.#o.connections || this.#queue.length === 0) return;
    this.#scheduled = true;
    // After the current turn's I/O callbacks: every write asked for in this turn joins the group.
    setImmediate(() => {
      this.#scheduled = false;
      while (this.#open < this.#o.connections && this.#queue.length > 0) {
        const group = this.#takeGroup();
        if (group === undefined) break; // what waits has its group open: the next opens when one ends
        const { batch } = group[0]!;
        this.#open++;
        this.#openOf.set(batch, (this.#openOf.get(batch) ?? 0) + 1);
        void this.#run(group).finally(() => {
          this.#open--;
          this.#openOf.set(batch, this.#openOf.get(batch)! - 1);
          this.#schedule();
        });
      }
    });
  }

  /**
   * The next group: the first waiting write that may open one and those of its batch (unbatched writes with each
   * other), in order; undefined when none may.
   */
  #takeGroup(): Pending[] | undefined {
    const batch = this.#nextBatch();
    if (batch === null) return undefined;
    const group: Pending[] = [];
    const rest: Pending[] = [];
    for (const p of this.#queue) (p.batch === batch && group.length < this.#o.maxGroup ? group : rest).push(p);
    this.#queue = rest;
    return group;
  }

  /**
   * The batch name of the first waiting write that may open a group (undefined: the writes of none), or null: an
   * urgent write may, another when no group of its batch name is open or a full group of it waits.
   */
  #nextBatch(): string | undefined | null {
    const waiting = new Map<string | undefined, number>();
    for (const p of this.#queue) waiting.set(p.batch, (waiting.get(p.batch) ?? 0) + 1);
    for (const p of this.#queue) {
      if (p.urgent || !this.#openOf.get(p.batch) || waiting.get(p.batch)! >= this.#o.maxGroup) return p.batch;
    }
    return null;
  }

  async #run(group: Pending[]): Promise<void> {
    if (group.length === 1) {
      const p = group[0] as Pending;
      await this.#o.alone(p.fn).then(p.resolve, p.reject);
      return;
    }
    const txs: (TxSql | undefined)[] = [];
    let values: unknown[];
    try {
      // Side by side, its writes merge their statements: the plan settings for them go out with the BEGIN.
      values = await this.#o.transaction((client, commit) => this.#together(client, group, txs, commit), BEGIN_WITH_MERGED_PLANS);
    } catch (err) {
      if (err instanceof CommittedAnyway && err.cause instanceof WriteThrew) {
        // Stored, though a write failed on its own after it said it sent everything (a bug in it): none runs again.
        const { outcomes } = err.cause;
        for (const tx of txs) tx?.settle(true);
        group.forEach((p, i) => {
          const o = outcomes[i];
          if (o?.status === 'fulfilled') p.resolve(o.value);
          else p.reject(o?.reason);
        });
        return;
      }
      for (const tx of txs) tx?.settle(false);
      const cause = err instanceof WriteThrew ? err.cause : err;
      const unavailable = asUnavailable(cause);
      if (unavailable instanceof StoreUnavailableError) {
        for (const p of group) p.reject(unavailable);
        return;
      }
      // The one that threw gets its error; the others run again alone, in order. Not when it lost a race (it runs
      // again too), nor when its statement only found the transaction aborted by an earlier write that caught its
      // own failed statement (in_failed_sql_transaction): that write is to blame, and alone it gets the error.
      const blameless = isConflict(cause) || isAbortedByOther(cause) || isSharedFailure(cause);
      const failed = err instanceof WriteThrew && !blameless ? err.index : -1;
      for (const [i, p] of group.entries()) {
        if (i === failed) p.reject(cause);
        else await this.#o.alone(p.fn).then(p.resolve, p.reject);
      }
      return;
    }
    group.forEach((p, i) => {
      (txs[i] as TxSql).settle(true);
      p.resolve(values[i]);
    });
  }

  /**
   * The group's writes one after another in the open transaction, a run of one batch name at once; their results.
   * Once every write of the last run sent all its statements (`Repos.sent`) or returned, the COMMIT goes out
   * behind them (`commit`): the group's last round trip carries it.
   */
  async #together(client: pg.PoolClient, group: Pending[], txs: (TxSql | undefined)[], commit: () => void): Promise<unknown[]> {
    const outcomes: PromiseSettledResult<unknown>[] = [];
    const merger = new StatementMerger(new PgSql(client, { prepare: this.#o.prepare }), { plansSet: true });
    for (let start = 0; start < group.length; ) {
      const batch = group[start]!.batch;
      let end = start + 1;
      if (batch !== undefined) while (end < group.length && group[end]!.batch === batch) end++;
      let unsent = end === group.length ? end - start : Infinity;
      const oneSent = () => {
        if (--unsent > 0) return;
        merger.flush();
        commit();
      };
      const run = group.slice(start, end).map(async (p, k) => {
        const tx = new TxSql(new PgSql(client, { prepare: this.#o.prepare, merger }), oneSent);
        txs[start + k] = tx;
        try {
          const value = await p.fn(new Repos(tx));
          tx.sent();
          return value;
        } finally {
          tx.end();
        }
      });
      const settled = await Promise.allSettled(run);
      outcomes.push(...settled);
      const failures = settled.flatMap((r, k) => (r.status === 'rejected' ? [{ index: start + k, cause: r.reason as unknown }] : []));
      // The write to blame: the first whose error is its own, not the aborted transaction a neighbour left it.
      const blamed = failures.find((f) => !isAbortedByOther(f.cause) && !isSharedFailure(f.cause)) ?? failures[0];
      if (blamed !== undefined) throw new WriteThrew(blamed.index, blamed.cause, outcomes);
      start = end;
    }
    return outcomes.map((r) => (r as PromiseFulfilledResult<unknown>).value);
  }
}
