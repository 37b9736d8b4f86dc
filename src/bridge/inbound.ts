/**
 * The inbound flow's first half: a connector's `submit` stores the message
 * under its dedup key `(connector, external id)`, maps its thread and enqueues
 * the platform POST — all in ONE transaction — and resolves only after the
 * commit; `submitAll` does the same for several messages in one transaction.
 * `close` queues close_session the same way.
 */
import { randomUUID } from 'node:crypto';
import type { SubmitItem, SubmitMessage, SubmitResult } from '../connector/api.ts';
import type { EnqueueInput, JobQueue } from '../jobs/queue.ts';
import type { RetryBudget } from '../jobs/retry-budget.ts';
import type { Store } from '../store/database.ts';
import type { Repos } from '../store/repos.ts';
import { checkSubmitMessage, checkSubmitMessages } from '../connector/submit-rules.ts';
import { ThreadNotFoundError } from './errors.ts';
import { deriveThreadId } from './thread-id.ts';

export const POST_MESSAGES_JOB = 'platform.post_messages';
export const CLOSE_SESSION_JOB = 'platform.close_session';

/** What the platform-side jobs carry: the thread to flush, and the messages that asked. */
export interface ThreadJobPayload {
  connector: string;
  thread: number;
  messages?: number[];
}

/** The lane group of the platform jobs: a connector's posts and closes share its lane's slots (jobs/lanes.ts). */
export const PLATFORM_LANES = 'platform';

/** The order key of a thread's platform jobs (posts and closes): one at a time, in order, on any replica. */
export const threadOrder = (threadRowId: number): string => `thread:${threadRowId}`;

/** A thread's platform job as queued: in the thread's order, in its connector's lane (its posts' concurrency). */
export const threadJob = (kind: string, payload: ThreadJobPayload, budget: RetryBudget): EnqueueInput => ({
  kind,
  payload,
  orderKey: threadOrder(payload.thread),
  lane: payload.connector,
  ...budget,
});

export class InboundBridge {
  readonly #store: Store;
  readonly #queue: JobQueue;
  readonly #now: () => number;
  readonly #budget: RetryBudget;
  readonly #onSubmitted: ((connector: string, results: readonly SubmitResult[]) => void) | undefined;

  constructor(deps: {
    store: Store;
    queue: JobQueue;
    /** How long the platform POSTs are retried. */
    budget: RetryBudget;
    /** Told what each committed submit stored (metrics). */
    onSubmitted?: (connector: string, results: readonly SubmitResult[]) => void;
    now?: () => number;
  }) {
    this.#store = deps.store;
    this.#queue = deps.queue;
    this.#budget = deps.budget;
    this.#onSubmitted = deps.onSubmitted;
    this.#now = deps.now ?? Date.now;
  }

  /** `state`: connector state entries stored in the same write when the message is new. */
  async submit(connector: string, message: SubmitMessage, state?: Readonly<Record<string, unknown>>): Promise<SubmitResult> {
    checkSubmitMessage(message);
    // Grouped with concurrent writes in one commit; resolved only after it. A job it queued wakes the runner from
    // that write (JobQueue.onEnqueued).
    const result = await this.#store.write((tx) => this.#storeOne(tx, connector, message, state));
    this.#onSubmitted?.(connector, [result]);
    return result;
  }

  /**
   * Several messages in ONE write, in order: all stored or none. Every message
   * is checked first; an invalid one refuses the whole call (`TG_SUBMIT_INVALID`,
   * its `index` on the error) before anything is written.
   */
  async submitAll(connector: string, items: readonly SubmitItem[]): Promise<SubmitResult[]> {
    checkSubmitMessages(items.map((item) => item.message));
    if (items.length === 0) return [];
    const results = await this.#store.write(async (tx) => {
      const stored: SubmitResult[] = [];
      for (const item of items) stored.push(await this.#storeOne(tx, connector, item.message, item.state));
      return stored;
    });
    this.#onSubmitted?.(connector, results);
    return results;
  }

  async #storeOne(tx: Repos, connector: string, message: SubmitMessage, state: Readonly<Record<string, unknown>> | undefined): Promise<SubmitResult> {
    const now = this.#now();
    const thread = await tx.threads.ensure(connector, message.threadKey, deriveThreadId(connector, message.threadKey), now);
    if (message.references?.length) await tx.threads.attach(connector, thread.id, message.references, now);
    const variables = { ...(message.senderName ? { name: message.senderName } : {}), ...message.variables };
    // The dedup is the insert's: a message id the connector already sent stores nothing.
    const id = await tx.inbound.insertIfNew(
      {
        connector,
        externalId: message.messageId,
        kind: 'message',
        thread: thread.id,
        senderId: message.senderId,
        senderName: message.senderName ?? null,
        senderType: message.senderType ?? 'visitor',
        body: message.body,
        fullText: message.fullText ?? null,
        variables: Object.keys(variables).length > 0 ? variables : null,
        skipWaitingState: message.skipWaitingState === true,
        closeSession: message.closeSession === true,
      },
      now,
    );
    if (id === undefined) return { duplicate: true, threadId: thread.threadId };
    if (thread.closed) await tx.threads.setClosed(thread.id, false, now);
    for (const [key, value] of Object.entries(state ?? {})) await tx.state.set(connector, key, value, now);
    // A queued, due job of the thread takes this message along (one job per thread, not per message, in a burst):
    // it flushes every pending item of its thread when it runs, and it runs after this write's commit.
    const due = await tx.jobs.queuedOfOrder(threadOrder(thread.id), POST_MESSAGES_JOB, now);
    if (due !== undefined) {
      await tx.inbound.setJob(id, due);
      return { duplicate: false, threadId: thread.threadId };
    }
    const payload: ThreadJobPayload = { connector, thread: thread.id, messages: [id] };
    const jobId = await this.#queue.enqueue(tx, threadJob(POST_MESSAGES_JOB, payload, this.#budget));
    await tx.inbound.setJob(id, jobId);
    return { duplicate: false, threadId: thread.threadId };
  }

  /** Queues close_session behind the thread's pending messages, as an item of the same ordered list. */
  async close(connector: string, threadKey: string): Promise<void> {
    await this.#store.write(async (tx) => {
      const now = this.#now();
      const thread = await tx.threads.byKey(connector, threadKey);
      if (!thread) throw new ThreadNotFoundError(`connector ${connector} has no thread ${JSON.stringify(threadKey)}`);
      await tx.threads.setClosed(thread.id, true, now);
      const id = await tx.inbound.insert(
        {
          connector,
          externalId: `close:${randomUUID()}`,
          kind: 'close',
          thread: thread.id,
          senderId: '',
          senderName: null,
          senderType: 'visitor',
          body: '',
          fullText: null,
          variables: null,
          skipWaitingState: false,
          closeSession: true,
        },
        now,
      );
      const payload: ThreadJobPayload = { connector, thread: thread.id, messages: [id] };
      await tx.inbound.setJob(id, await this.#queue.enqueue(tx, threadJob(CLOSE_SESSION_JOB, payload, this.#budget)));
    });
  }
}
