/**
 * Operators sending things again. A delivery replay hands the stored event
 * to its connector once more through a new `connector.deliver` job, bypassing
 * the receiver's dedup, recorded as a replay attempt. An inbound retry puts a
 * dead message back in its thread's list and queues the thread's flush. Both
 * work from any process on the store (the CLI beside a running `serve`): the
 * serving job runner picks the job up at its next look at the table.
 */
import type { JobQueue } from '../jobs/queue.ts';
import type { RetryBudget } from '../jobs/retry-budget.ts';
import type { Store } from '../store/database.ts';
import { matchingDeliveryIds, matchingInboundIds, type DeliveryFilter, type InboundFilter } from '../store/log-queries.ts';
import { NotReplayableError, RecordNotFoundError } from './errors.ts';
import { CLOSE_SESSION_JOB, POST_MESSAGES_JOB, threadJob, type ThreadJobPayload } from './inbound.ts';
import { DELIVER_JOB, deliveryOrder, type DeliverJobPayload } from './webhook-intake.ts';

export interface ReplayDeps {
  store: Store;
  queue: JobQueue;
  /** For replayed deliveries. */
  deliveryBudget: RetryBudget;
  /** For inbound retries (platform POSTs). */
  platformBudget: RetryBudget;
  notify?: (kind: string) => void;
  now?: () => number;
}

export interface BulkReplayResult {
  matched: number;
  replayed: number[];
  skipped: { id: number; reason: string }[];
}

export interface BulkRetryResult {
  /** The dead inbound messages the filter matched, oldest first. */
  matched: number[];
  /** Those queued again, each with its new job (none on a dry run). */
  retried: { id: number; job: number }[];
  /** Those that could not be (retried by someone else meanwhile). */
  skipped: { id: number; reason: string }[];
}

export class Replayer {
  readonly #d: ReplayDeps;

  constructor(deps: ReplayDeps) {
    this.#d = deps;
  }

  /** Queues the delivery again; returns the new job's id. */
  async replayDelivery(id: number): Promise<number> {
    const jobId = await this.#d.store.write(async (tx) => {
      const delivery = await tx.deliveries.byId(id);
      if (!delivery) throw new RecordNotFoundError(`no delivery ${id}`);
      if (delivery.status === 'rejected') throw new NotReplayableError(`delivery ${id} was rejected (${delivery.verification}): there is no verified event to send`);
      if (delivery.bodyTruncated) throw new NotReplayableError(`delivery ${id} keeps only the start of its body (store.max_stored_body_bytes)`);
      // A delivery whose job is still queued or running would be sent twice.
      const current = delivery.jobId === null ? undefined : await tx.jobs.get(delivery.jobId);
      if (current && (current.status === 'queued' || current.status === 'running')) {
        throw new NotReplayableError(`delivery ${id} is still being delivered (job ${current.id} is ${current.status}, attempt ${current.attempts} of ${current.max_attempts})`);
      }
      const payload: DeliverJobPayload = { connector: delivery.connector, delivery: id, ...(delivery.threadId ? { thread: delivery.threadId } : {}), replay: true };
      const job = await this.#d.queue.enqueue(tx, { kind: DELIVER_JOB, payload, ...(delivery.threadId ? { orderKey: deliveryOrder(delivery.connector, delivery.threadId) } : {}), ...this.#d.deliveryBudget });
      await tx.deliveries.setJob(id, job);
      const now = (this.#d.now ?? Date.now)();
      await tx.deliveries.recordOutcome(id, 'accepted', null, null, now);
      // The dead job this one replaces is resolved: retrying it too would deliver twice.
      if (current?.status === 'dead') await tx.jobs.supersede(current.id, job, now);
      return job;
    });
    this.#d.notify?.(DELIVER_JOB);
    return jobId;
  }

  /** Replays every delivery the filter matches (all of them, page by page); `dryRun` only counts. */
  async replayWhere(
    filter: Omit<DeliveryFilter, 'before' | 'limit'>,
    options: { dryRun?: boolean; onProgress?: (done: number, total: number) => void } = {},
  ): Promise<BulkReplayResult> {
    const ids = await matchingDeliveryIds(this.#d.store.read.sql, filter); // oldest first, the order they happened in
    const result: BulkReplayResult = { matched: ids.length, replayed: [], skipped: [] };
    if (options.dryRun) return result;
    for (const [i, id] of ids.entries()) {
      try {
        await this.replayDelivery(id);
        result.replayed.push(id);
      } catch (err) {
        result.skipped.push({ id, reason: (err as Error).message });
      }
      options.onProgress?.(i + 1, ids.length);
    }
    return result;
  }

  /** A dead inbound message (or close request) back to pending, and its thread's flush queued. */
  async retryInbound(id: number): Promise<number> {
    const queued = await this.#d.store.write(async (tx) => {
      const message = await tx.inbound.byId(id);
      if (!message) throw new RecordNotFoundError(`no inbound message ${id}`);
      if (message.status !== 'dead') throw new NotReplayableError(`inbound message ${id} is ${message.status}; only dead ones are retried`);
      const previous = await tx.inbound.jobOf(id);
      await tx.inbound.revive(id);
      const payload: ThreadJobPayload = { connector: message.connector, thread: message.thread, messages: [id] };
      const kind = message.kind === 'close' ? CLOSE_SESSION_JOB : POST_MESSAGES_JOB;
      const job = await this.#d.queue.enqueue(tx, threadJob(kind, payload, this.#d.platformBudget));
      await tx.inbound.setJob(id, job);
      // Its dead job is resolved once no dead message of its own is left to it.
      if (previous !== null && (await tx.inbound.deadOfJob(previous)) === 0) await tx.jobs.supersede(previous, job, (this.#d.now ?? Date.now)());
      return { job, kind };
    });
    this.#d.notify?.(queued.kind);
    return queued.job;
  }

  /** Retries every dead inbound message the filter matches, oldest first (the order they came in); `dryRun` only lists them. */
  async retryInboundWhere(filter: Omit<InboundFilter, 'status' | 'before' | 'limit'>, options: { dryRun?: boolean } = {}): Promise<BulkRetryResult> {
    const matched = await matchingInboundIds(this.#d.store.read.sql, { ...filter, status: ['dead'] });
    const result: BulkRetryResult = { matched, retried: [], skipped: [] };
    if (options.dryRun) return result;
    for (const id of matched) {
      try {
        result.retried.push({ id, job: await this.retryInbound(id) });
      } catch (err) {
        if (!(err instanceof NotReplayableError || err instanceof RecordNotFoundError)) throw err;
        result.skipped.push({ id, reason: err.message });
      }
    }
    return result;
  }
}
