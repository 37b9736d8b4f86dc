/**
 * The job queue's values (queue.ts): a job as its runs see it, what an
 * enqueue is given and what the runner is told of it, a failure's outcome,
 * and the work a job's write does beside it.
 */
import type { Repos } from '../store/repos.ts';
import type { JobStatus } from '../store/schema.ts';

export interface Job<P = unknown> {
  id: number;
  kind: string;
  payload: P;
  status: JobStatus;
  attempts: number;
  maxAttempts: number;
  /** Unix ms after which no new try starts; null for a job queued before deadlines existed. */
  giveUpAt: number | null;
  /** Whether a failure of the current try dead-letters the job (decided when it was read: at the claim for a running job). */
  lastTry: boolean;
  runAt: number;
  lastError: string | null;
}

export interface EnqueueInput {
  kind: string;
  payload: unknown;
  /** The attempt cap; default DEFAULT_RETRY_BUDGET's. */
  maxAttempts?: number;
  /** How long it is retried from now; default DEFAULT_RETRY_BUDGET's (3 days). */
  retryForMs?: number;
  /** Unix ms; default now. */
  runAt?: number;
  /** Jobs of one key run one at a time, in the order queued, on any replica (a thread's deliveries or posts). */
  orderKey?: string;
  /** The lane a claim takes it in (a platform post's connector): named by every job of a kind the runner runs in lanes, by no other. */
  lane?: string;
  /** The id reserved for it in `tx` (PostgreSQL: its delivery names it already); absent: the store gives the next. */
  id?: number;
}

/** A job just inserted in a write, as the runner is told of it (`JobQueue.onEnqueued`). */
export interface Enqueued {
  id: number;
  kind: string;
  runAt: number;
  lane: string | null;
  /** The row's payload (JSON), attempts and deadline as written: a take needs no read of them. */
  payload: string;
  maxAttempts: number;
  giveUpAt: number;
}

/** Runs inside the enqueuing write: may take the job there (`JobQueue.take`) or wait for the commit to look. */
export type EnqueueListener = (tx: Repos, job: Enqueued) => Promise<void>;

export type FailOutcome = { status: 'queued'; runAt: number } | { status: 'dead' };

/** Work done in a job's grouped write (its outcome, its failure records); a completion's sends its statements before its first await. */
export type TxWork = (tx: Repos) => void | Promise<void>;
