/**
 * The receiver's write, as a named write (`store.command`) so that the SQLite
 * store can run it in its writer thread: the dedup read, the delivery, its
 * `connector.deliver` job — one atomic write, the transactional outbox — and,
 * when the job runner reserved a slot for it (`JobQueue.reserveTake`), the
 * job taken and its attempt opened in the same write, so the delivery starts
 * the moment the write commits. Plain arguments in, a plain result out; it
 * depends on nothing but its transaction.
 */
import { newJobRow } from '../jobs/queue.ts';
import type { JobRow } from '../store/jobs-repo.ts';
import type { NewDelivery } from '../store/deliveries-repo.ts';
import type { Repos } from '../store/repos.ts';
import type { WriteCommand } from '../store/store.ts';

export const DELIVER_JOB = 'connector.deliver';

export interface DeliverJobPayload {
  connector: string;
  delivery: number;
  /** The event's thread_id: its deliveries run one at a time, in the order queued (absent in jobs of older versions). */
  thread?: string;
  /** An operator's replay: recorded as such on the attempt. */
  replay?: boolean;
}

/** The order key of a thread's deliveries: one at a time, in the order the platform sent them, on any replica. */
export const deliveryOrder = (connector: string, threadId: string): string => `deliver:${connector}:${threadId}`;

export interface IntakeWriteArgs {
  delivery: Omit<NewDelivery, 'duplicateOf' | 'status' | 'dedupKey' | 'threadId'> & { dedupKey: string; threadId: string };
  /** The job's retry budget. */
  budget: { maxAttempts?: number; retryForMs?: number };
  /** Take the job for `owner` (a slot the runner reserved), or leave it queued. */
  take: { owner: string; leaseMs: number } | null;
  now: number;
}

export interface IntakeWriteResult {
  deliveryId: number;
  duplicate: boolean;
  /** The job as taken, when it was: it starts once the write committed. */
  taken?: JobRow;
  /** The attempt opened for the taken job. */
  attemptId?: number;
}

export const INTAKE_WRITE: WriteCommand<IntakeWriteArgs, IntakeWriteResult> = {
  name: 'bridge.intake',
  async run(tx: Repos, { delivery, budget, take, now }: IntakeWriteArgs): Promise<IntakeWriteResult> {
    const original = await tx.deliveries.originalOf(delivery.connector, delivery.dedupKey);
    if (original !== undefined) {
      return { deliveryId: await tx.deliveries.insert({ ...delivery, duplicateOf: original, status: 'duplicate' }, now), duplicate: true };
    }
    const id = await tx.deliveries.insert({ ...delivery, duplicateOf: null, status: 'accepted' }, now);
    const payload: DeliverJobPayload = { connector: delivery.connector, delivery: id, thread: delivery.threadId };
    const jobId = await tx.jobs.insert(newJobRow({ kind: DELIVER_JOB, payload, orderKey: deliveryOrder(delivery.connector, delivery.threadId), ...budget }, now), now);
    await tx.deliveries.setJob(id, jobId);
    const taken = take ? await tx.jobs.take(jobId, take.owner, now + take.leaseMs, now) : undefined;
    if (!taken) return { deliveryId: id, duplicate: false };
    const attemptId = await tx.attempts.openDelivery(id, jobId, taken.attempts, false, now);
    return { deliveryId: id, duplicate: false, taken, attemptId };
  },
};
