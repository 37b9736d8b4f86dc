/**
 * Group commit for the SQLite backend: writes asked for by concurrent
 * requests and jobs are collected while the current event-loop turn runs and
 * committed together in one `BEGIN IMMEDIATE … COMMIT`, so one fsync covers
 * many of them. One write that throws or rejects fails alone: its caller gets
 * the error while its neighbours commit. The writes run straight in the
 * transaction; when one throws, the transaction is rolled back and the others
 * run again, each in its own SAVEPOINT (so a write may run twice, as on
 * PostgreSQL: store.ts). Every caller's promise settles only after the COMMIT
 * that holds its write returned and, with `sync`, the log was fsynced — a
 * 2xx sent on it is durable.
 *
 * A write is an async function of a transaction handle (`TxSql`, through the
 * repositories). Writes of a group run one after another; since SQLite's
 * executor settles at once, a group takes microtasks, not event-loop turns.
 * The handle refuses use after its write settled, and readers use their own
 * connection, so nobody sees a group's writes before its COMMIT. Writes that
 * arrive while a group commits form the next group. A write's commit
 * listeners (`TxSql.afterCommit`) are told its fate in the order the writes
 * ran, each write's before its caller is answered.
 */
import type Database from 'better-sqlite3';
import { StoreClosedError } from './errors.ts';
import type { Sql } from './sql.ts';
import { TxSql } from './tx-sql.ts';

export interface GroupCommitOptions {
  /** Most writes in one transaction; the rest go to the next group. */
  maxGroup?: number;
  /** Told about each committed group (metrics, benchmarks). */
  onCommit?: (size: number, seconds: number) => void;
}

export interface GroupDurability {
  /**
   * Makes a committed group durable (the WAL's fdatasync, wal-sync.ts); its
   * callers are answered after it. Without it the COMMIT itself is trusted.
   */
  sync?: () => Promise<void>;
}

export type Write<T, Tx> = (tx: Tx) => T | Promise<T>;

interface Pending {
  work: Write<unknown, Sql>;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

type Settled = { ok: true; value: unknown; tx: TxSql } | { ok: false; error: unknown; tx: TxSql };

export const DEFAULT_MAX_GROUP = 512;

export class GroupCommitter {
  readonly #db: Database.Database;
  readonly #writer: Sql;
  readonly #maxGroup: number;
  readonly #onCommit: GroupCommitOptions['onCommit'];
  readonly #sync: GroupDurability['sync'];
  readonly #sql: Record<'begin' | 'commit' | 'rollback' | 'savepoint' | 'release' | 'undo', Database.Statement>;
  #queue: Pending[] = [];
  #scheduled = false;
  #flushing: Promise<void> | null = null;
  #closed = false;

  /** `writer` runs the writes' SQL on `db`, the connection this committer owns. */
  constructor(db: Database.Database, writer: Sql, options: GroupCommitOptions & GroupDurability = {}) {
    this.#db = db;
    this.#sync = options.sync;
    this.#writer = writer;
    this.#maxGroup = options.maxGroup ?? DEFAULT_MAX_GROUP;
    this.#onCommit = options.onCommit;
    this.#sql = {
      begin: db.prepare('BEGIN IMMEDIATE'),
      commit: db.prepare('COMMIT'),
      rollback: db.prepare('ROLLBACK'),
      savepoint: db.prepare('SAVEPOINT tg_write'),
      release: db.prepare('RELEASE tg_write'),
      undo: db.prepare('ROLLBACK TO tg_write'),
    };
  }

  /** Runs `work` in the next group; resolves with its result after that group committed. */
  write<T>(work: Write<T, Sql>): Promise<T> {
    if (this.#closed) return Promise.reject(new StoreClosedError('the store is closed'));
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ work, resolve: resolve as (v: unknown) => void, reject });
      if (!this.#scheduled && this.#flushing === null) {
        this.#scheduled = true;
        // After the current turn's I/O callbacks: every request parsed in this turn joins the group.
        setImmediate(() => void this.#flush());
      }
    });
  }

  /** Writes still waiting for their commit. */
  get pending(): number {
    return this.#queue.length;
  }

  /** Commits what is queued (and what is being committed), then refuses new writes. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#flushing;
    await this.#flush();
  }

  #flush(): Promise<void> {
    this.#scheduled = false;
    this.#flushing ??= (async () => {
      try {
        while (this.#queue.length > 0) await this.#commitGroup(this.#queue.splice(0, this.#maxGroup));
      } finally {
        this.#flushing = null;
      }
    })();
    return this.#flushing;
  }

  async #commitGroup(group: Pending[]): Promise<void> {
    const started = performance.now();
    const outcomes: Settled[] = [];
    const live: TxSql[] = []; // the writes' handles whose fate their listeners have not heard yet
    try {
      this.#sql.begin.run();
    } catch (error) {
      for (const p of group) p.reject(error);
      return;
    }
    try {
      await this.#write(group, outcomes, live);
    } catch (error) {
      // The COMMIT failed (or, after a failed write, the second run's BEGIN or savepoints): nothing of the group is stored.
      if (this.#db.inTransaction) this.#sql.rollback.run();
      failAll(group, live, error);
      return;
    }
    try {
      // Off the event loop: requests keep being parsed into the next group meanwhile.
      await this.#sync?.();
    } catch (error) {
      // Committed but not known to be on disk: nobody is told it is stored.
      failAll(group, live, error);
      return;
    }
    this.#onCommit?.(group.length, (performance.now() - started) / 1000);
    // In the order the writes ran: each write's commit listeners, then its caller.
    group.forEach((p, i) => {
      const s = outcomes[i] as Settled;
      s.tx.settle(s.ok);
      if (s.ok) p.resolve(s.value);
      else p.reject(s.error);
    });
  }

  /**
   * Runs the group's writes in the transaction just begun and commits it; `outcomes` gets theirs in order. The writes run
   * straight in the transaction first, without savepoints (each costs its write a copy of every page it changes).
   * When one throws, the transaction is rolled back: that write has failed, alone, and the others run again in a
   * new transaction, each in its own savepoint. A write may run more than once (store.ts).
   */
  async #write(group: Pending[], outcomes: Settled[], live: TxSql[]): Promise<void> {
    const failed = await this.#runStraight(group, outcomes, live);
    if (failed === undefined) {
      this.#sql.commit.run();
      return;
    }
    if (this.#db.inTransaction) this.#sql.rollback.run();
    const failure = outcomes[failed] as Settled;
    // The runs rolled back are over: their listeners hear so before the writes run again.
    for (const s of outcomes.slice(0, failed)) s.tx.settle(false);
    outcomes.length = 0;
    live.length = 0;
    live.push(failure.tx);
    this.#sql.begin.run();
    for (const [i, p] of group.entries()) outcomes.push(i === failed ? failure : await this.#runInSavepoint(p, live));
    this.#sql.commit.run();
  }

  /** Runs the writes one after another in the open transaction, until one throws: its index, or undefined. */
  async #runStraight(group: Pending[], outcomes: Settled[], live: TxSql[]): Promise<number | undefined> {
    for (const [i, p] of group.entries()) {
      const tx = new TxSql(this.#writer);
      live.push(tx);
      try {
        outcomes.push({ ok: true, value: await p.work(tx), tx });
      } catch (error) {
        outcomes.push({ ok: false, error, tx });
        return i;
      } finally {
        tx.end();
      }
    }
    return undefined;
  }

  /** Runs one write in a savepoint of the open transaction: rolled back alone if it throws. */
  async #runInSavepoint(p: Pending, live: TxSql[]): Promise<Settled> {
    this.#sql.savepoint.run();
    const tx = new TxSql(this.#writer);
    live.push(tx);
    try {
      const value = await p.work(tx);
      this.#sql.release.run();
      return { ok: true, value, tx };
    } catch (error) {
      this.#sql.undo.run();
      this.#sql.release.run();
      return { ok: false, error, tx };
    } finally {
      tx.end();
    }
  }
}

function failAll(group: Pending[], txs: readonly TxSql[], error: unknown): void {
  for (const tx of txs) tx.settle(false);
  for (const p of group) p.reject(error);
}
