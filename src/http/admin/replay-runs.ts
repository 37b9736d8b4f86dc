/**
 * Bulk replays started over HTTP, run in the background and kept in memory
 * (the latest MAX_KEPT) so a client can follow one by its id. The matching
 * ids are read first, page by page — a snapshot, so replaying (which changes
 * statuses) cannot move the pages under the run — then replayed oldest
 * first in small batches with a turn of the event loop between them: a large
 * run must not hold up the webhook receiver, which answers within seconds.
 * Each record is replayed as `Replayer.replayWhere` does it (and as the CLI
 * does): a record that cannot be replayed is skipped with the reason.
 */
import { randomUUID } from 'node:crypto';
import { setImmediate as turn } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { Replayer } from '../../bridge/replay.ts';
import type { Store } from '../../store/database.ts';
import { matchingDeliveryIds, type DeliveryFilter } from '../../store/log-queries.ts';

export type ReplayFilter = Omit<DeliveryFilter, 'before' | 'limit'>;

export interface ReplayRun {
  id: string;
  status: 'running' | 'done';
  dry_run: boolean;
  /** Deliveries the filter matched when the run started. */
  matched: number;
  replayed: number;
  skipped: number;
  /** Matched deliveries handled so far (replayed + skipped); a dry run handles none. */
  done: number;
  skipped_records: { id: number; reason: string }[];
  /** Why the run stopped early (the gateway stopping), else null. */
  error: string | null;
  started_at: string;
  finished_at: string | null;
}

export interface ReplayRunsDeps {
  store: Store;
  replayer: Pick<Replayer, 'replayDelivery'>;
  logger: Logger;
  batchSize?: number;
}

const MAX_KEPT = 100;
const MAX_SKIPS_KEPT = 1_000;
const DEFAULT_BATCH = 50;

export class ReplayRuns {
  readonly #d: ReplayRunsDeps;
  readonly #runs = new Map<string, ReplayRun>();
  readonly #stopping = new AbortController();
  readonly #active = new Set<Promise<void>>();

  constructor(deps: ReplayRunsDeps) {
    this.#d = deps;
  }

  /** Starts a run and returns it at once (status `running`). */
  start(filter: ReplayFilter, dryRun: boolean): ReplayRun {
    const run: ReplayRun = {
      id: randomUUID(),
      status: 'running',
      dry_run: dryRun,
      matched: 0,
      replayed: 0,
      skipped: 0,
      done: 0,
      skipped_records: [],
      error: null,
      started_at: new Date().toISOString(),
      finished_at: null,
    };
    this.#runs.set(run.id, run);
    this.#forgetOld();
    const work = this.#execute(run, filter).finally(() => this.#active.delete(work));
    this.#active.add(work);
    return { ...run };
  }

  get(id: string): ReplayRun | undefined {
    const run = this.#runs.get(id);
    return run && { ...run, skipped_records: [...run.skipped_records] };
  }

  /** Stops every running run between two batches and waits for them (before the store closes). */
  async close(): Promise<void> {
    this.#stopping.abort();
    await Promise.all([...this.#active]);
  }

  async #execute(run: ReplayRun, filter: ReplayFilter): Promise<void> {
    const signal = this.#stopping.signal;
    const batch = this.#d.batchSize ?? DEFAULT_BATCH;
    try {
      await turn();
      const ids = signal.aborted ? [] : await matchingDeliveryIds(this.#d.store.read.sql, filter); // oldest first, the order they happened in
      run.matched = ids.length;
      if (run.dry_run) return;
      for (let i = 0; i < ids.length && !signal.aborted; i += batch) {
        // A batch's replays are asked for together: one grouped commit, in id order.
        await Promise.all(ids.slice(i, i + batch).map((id) => this.#replayOne(run, id)));
        await turn();
      }
    } catch (err) {
      run.error = (err as Error).message;
      this.#d.logger.error({ err, replay_run: run.id }, 'bulk replay failed');
    } finally {
      if (signal.aborted && run.done < run.matched && !run.dry_run) run.error ??= 'the gateway stopped before the run finished';
      run.status = 'done';
      run.finished_at = new Date().toISOString();
      this.#d.logger.info(
        { replay_run: run.id, matched: run.matched, replayed: run.replayed, skipped: run.skipped, dry_run: run.dry_run },
        'bulk replay finished',
      );
    }
  }

  async #replayOne(run: ReplayRun, id: number): Promise<void> {
    try {
      await this.#d.replayer.replayDelivery(id);
      run.replayed += 1;
    } catch (err) {
      run.skipped += 1;
      if (run.skipped_records.length < MAX_SKIPS_KEPT) run.skipped_records.push({ id, reason: (err as Error).message });
    }
    run.done += 1;
  }

  #forgetOld(): void {
    for (const [id, run] of this.#runs) {
      if (this.#runs.size <= MAX_KEPT) break;
      if (run.status === 'done') this.#runs.delete(id);
    }
  }
}
