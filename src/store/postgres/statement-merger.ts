/**
 * One transaction's merged statements on PostgreSQL (sql.ts `Mergeable`).
 * The writes of a batch (pg-group-writer.ts) run side by side, and a claim
 * opens its jobs' attempts side by side: each issues the same statements about
 * a row of its own. Issued in one tick, they wait until the tick ends (every
 * promise continuation queued in it has run) and go out as one statement for
 * all of their rows — a batch of N webhooks costs the server three inserts,
 * not 3 × N — each caller answered its own row's result.
 *
 * Order is kept: each caller's statements run in the order it issued them (a
 * caller joins a waiting statement only if it issued nothing after it), and a
 * statement that is not merged (`run`, `get`, …) sends what waits before it
 * goes.
 *
 * The first many-rows statement of a transaction is preceded by settings for
 * the rest of it; a group's transaction, whose writes merge side by side,
 * begins with them instead (`BEGIN_WITH_MERGED_PLANS`). No sequential scans:
 * PostgreSQL keeps the generic plan it made for a prepared statement on a
 * new database, where a table never analyzed is thought to be a few pages,
 * and joined with `unnest` the deliveries were read whole (1.2 ms a
 * statement behind 60,000 rows when measured); every statement of a write
 * finds its rows by an index, and without sequential scans the plans say so
 * whatever the statistics. Generic plans: planned for each run's arrays, the
 * outcomes' update cost 78 µs of planning a run.
 * A merged statement that fails fails every caller in it with the same
 * error, marked shared (`isSharedFailure`): the group writer blames none of
 * them, and each runs again alone, where the one at fault meets its error.
 */
import { StoreMergeError } from '../errors.ts';
import type { Mergeable, Sql } from '../sql.ts';

interface Entry {
  params: unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

interface Waiting {
  statement: Mergeable<unknown, unknown>;
  entries: Entry[];
}

const shared = new WeakSet<object>();

/** How the rest of a transaction plans once it sends a many-rows statement: by indexes, and once per statement. */
const PLAN_SETTINGS = [
  ['enable_seqscan', 'off'],
  ['plan_cache_mode', 'force_generic_plan'],
] as const;

/** The settings as a statement of their own, sent before a transaction's first many-rows statement. */
export const MERGED_PLANS = `select ${PLAN_SETTINGS.map(([name, value]) => `set_config('${name}', '${value}', true)`).join(', ')}`;

/**
 * The same settings with the transaction's BEGIN, one simple query (a group's transaction, whose writes side by side
 * merge their statements): no statement of its own to bind, run and answer.
 */
export const BEGIN_WITH_MERGED_PLANS = ['begin', ...PLAN_SETTINGS.map(([name, value]) => `set local ${name} = ${value}`)].join('; ');

/** Whether `err` failed a merged statement of several callers (no one of them is known to be at fault). */
export const isSharedFailure = (err: unknown): boolean => typeof err === 'object' && err !== null && shared.has(err);

export class StatementMerger {
  /** Where merged statements are sent: the transaction's connection, unmerged. */
  readonly #db: Sql;
  #waiting: Waiting[] = [];
  /** Each caller's latest place in `#waiting`. */
  readonly #placeOf = new Map<object, number>();
  #scheduled = false;
  /** Whether the plan settings (`MERGED_PLANS`) are still to be sent: before a transaction's first many-rows statement. */
  #settingsDue: boolean;

  /**
   * `reads`: merges the pool's reads, outside any transaction (no plan settings: they would hold for one statement).
   * `plansSet`: the transaction began with the settings (`BEGIN_WITH_MERGED_PLANS`).
   */
  constructor(db: Sql, options: { reads?: boolean; plansSet?: boolean } = {}) {
    this.#db = db;
    this.#settingsDue = options.reads !== true && options.plansSet !== true;
  }

  /** `statement` for `caller`, sent with the same statement of other callers at the tick's end (or before the next unmerged one). */
  add<P, R>(caller: object, statement: Mergeable<P, R>, params: P): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      let at = this.#waiting.findLastIndex((w) => w.statement === statement);
      // Joining an earlier statement would send this one before what the caller issued since.
      if (at < 0 || (this.#placeOf.get(caller) ?? -1) > at) at = this.#waiting.push({ statement: statement as Mergeable<unknown, unknown>, entries: [] }) - 1;
      this.#waiting[at]!.entries.push({ params, resolve: resolve as (value: unknown) => void, reject });
      this.#placeOf.set(caller, at);
      if (!this.#scheduled) {
        this.#scheduled = true;
        // After every continuation queued in this tick, however deep: the neighbours' statements have joined.
        process.nextTick(() => this.flush());
      }
    });
  }

  /** Sends every waiting statement, in order. */
  flush(): void {
    this.#scheduled = false;
    if (this.#waiting.length === 0) return;
    const waiting = this.#waiting;
    this.#waiting = [];
    this.#placeOf.clear();
    for (const w of waiting) this.#send(w);
  }

  #send({ statement, entries }: Waiting): void {
    if (entries.length === 1) {
      const [entry] = entries as [Entry];
      statement.one(this.#db, entry.params).then(entry.resolve, entry.reject);
      return;
    }
    const fail = (err: unknown) => {
      if (typeof err === 'object' && err !== null) shared.add(err);
      for (const e of entries) e.reject(err);
    };
    if (this.#settingsDue) {
      this.#settingsDue = false;
      // Out with the statement, not a round trip of its own; a failure fails the statement after it too.
      this.#db.run(MERGED_PLANS).catch(() => {});
    }
    statement.many(this.#db, entries.map((e) => e.params)).then(
      (results) => {
        if (results.length === entries.length) entries.forEach((e, i) => e.resolve(results[i]));
        else fail(new StoreMergeError(`merged statement ${statement.name} answered ${results.length} results for ${entries.length} rows`));
      },
      fail,
    );
  }
}
