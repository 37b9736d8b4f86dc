/**
 * The inbound flow's second half: the job that brings one thread's pending
 * items to the platform, strictly in the order they were submitted. Messages
 * go in batches (one POST .../messages, all sharing the thread_id) up to the
 * next close request or the first message that asked to close; a close
 * request becomes POST .../close_session. Both job kinds run this same flush
 * under a per-thread lock, so a retried job and a newer one never overlap and
 * a message that failed transiently is sent before the ones behind it.
 *
 * A 4xx other than 429 dead-letters the items it was about (with the
 * platform's answer); a 404 for the configuration registers it again and
 * tries once more; a 401 or 403 refuses the token, not the items: the
 * connector's posts are paused (`auth-pause.ts`) and the job postponed, its
 * items left pending. The one duplicate window: a crash after the platform
 * accepted a batch and before the commit that marks it posted resends it.
 */
import type { LiveFeed } from '../base/live-feed.ts';
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { PermanentJobError } from '../jobs/errors.ts';
import type { JobContext } from '../jobs/job-run.ts';
import { whileStoreUnavailable } from '../jobs/store-retry.ts';
import {
  isRetryable,
  PlatformHttpError,
  PlatformRequestInvalidError,
  PlatformResponseError,
} from '../platform/errors.ts';
import { LIMITS, type CreateMessagesRequest, type CreateMessagesResponse } from '../platform/schemas/unified-messaging.ts';
import type { UnifiedMessagingClient } from '../platform/unified-messaging-client.ts';
import type { Store } from '../store/database.ts';
import type { InboundRow } from '../store/inbound-repo.ts';
import type { Repos } from '../store/repos.ts';
import type { InboundOutcome } from '../store/schema.ts';
import type { ThreadRow } from '../store/threads-repo.ts';
import { ThreadBacklogError } from './errors.ts';
import { KeyedMutex } from './keyed-mutex.ts';
import type { ThreadJobPayload } from './inbound.ts';
import type { RegistrationTarget, Registrar } from './registrar.ts';
import { isAuthRefusal, type AuthPause } from './auth-pause.ts';

const BATCH = 50;
const MAX_ROUNDS = 40;
const ONE_ATTEMPT = { retry: { attempts: 1 } } as const;

/** The job run a flush belongs to, for the attempt log. */
interface Run {
  jobId: number;
  attempt: number;
  /** The job's last try: a failure now dead-letters the items too. */
  final: boolean;
  signal: AbortSignal;
  /** Items the platform refused in this run (dead-lettered; the rest of the thread goes on). */
  refused: string[];
  /** Records to commit with the job's failure when this run throws (JobContext.onFail). */
  onFail(work: (tx: Repos) => Promise<void>): void;
}

/** A batch of several items was refused: the flush retries them one at a time. */
class BatchRefused extends Error {}

export interface ThreadSyncDeps {
  store: Store;
  client: UnifiedMessagingClient;
  registrar: Registrar;
  pause: AuthPause;
  targetOf(connector: string): RegistrationTarget;
  logger: Logger;
  /** What listens live: each post and close to the platform, and each failure. */
  feed?: LiveFeed;
  now?: () => number;
}

/** An id the platform stores in 512 characters: as given, or `sha256:<hex>` of a longer one. */
export function fitId(value: string): string {
  return value.length <= LIMITS.messageId ? value : `sha256:${createHash('sha256').update(value).digest('hex')}`;
}

export class ThreadSync {
  readonly #d: ThreadSyncDeps;
  readonly #now: () => number;
  readonly #mutex = new KeyedMutex();

  constructor(deps: ThreadSyncDeps) {
    this.#d = deps;
    this.#now = deps.now ?? Date.now;
  }

  /** The job handler of both platform.post_messages and platform.close_session. */
  readonly handle = async (payload: ThreadJobPayload, ctx: JobContext<ThreadJobPayload>): Promise<void> => {
    const { store } = this.#d;
    const thread = await store.read.threads.byId(payload.thread);
    if (!thread) throw new PermanentJobError(`thread ${payload.thread} does not exist`);
    const run: Run = { jobId: ctx.job.id, attempt: ctx.job.attempts, final: ctx.job.lastTry, signal: ctx.signal, refused: [], onFail: ctx.onFail };
    await this.#d.pause.admit(thread.connector, ctx.job.id);
    // Held until this run's outcome is committed: its failure record (items dead-lettered) must be what the next run reads.
    await this.#mutex.run(String(thread.id), async () => {
      // A dead job retried by an operator starts again at its first attempt, keeping the error it died with: its
      // items were dead-lettered with it, send them again. (A fresh job has no error yet: an item of it that an
      // earlier job's batch dead-lettered stays dead.)
      if (ctx.job.attempts === 1 && ctx.job.lastError !== null) await store.write((tx) => tx.inbound.reviveOfJob(ctx.job.id));
      try {
        await this.#flush(thread, run);
      } catch (err) {
        if (isAuthRefusal(err) && !ctx.signal.aborted) {
          this.#d.pause.pause(thread.connector, err);
          throw this.#d.pause.postpone(thread.connector, ctx.job.id);
        }
        // The last try failed before reaching the items (no registration, no answer at all):
        // dead-letter what only this job was going to send, so `inbound retry` can act on it.
        if (run.final && !ctx.signal.aborted && !(err instanceof ThreadBacklogError)) {
          const message = err instanceof Error ? err.message.slice(0, 2_000) : String(err);
          ctx.onFail(async (tx) => void (await tx.inbound.markStrandedDead(thread.id, ctx.job.id, message)));
        }
        throw err;
      }
    }, ctx.recorded);
    if (run.refused.length > 0) {
      throw new PermanentJobError(`the platform refused ${run.refused.length} item(s) of thread ${thread.threadId}: ${run.refused[0]}`);
    }
  };

  async #flush(thread: ThreadRow, run: Run): Promise<void> {
    let batchSize = BATCH;
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const pending = await this.#d.store.read.inbound.pending(thread.id, batchSize);
      const first = pending[0];
      if (first === undefined) return;
      try {
        if (first.kind === 'close') {
          await this.#close(thread, first, run);
          continue;
        }
        const batch = leadingBatch(pending);
        const posted = await this.#post(thread, batch, run);
        // Everything that was pending is on the platform. An item that came in since has a job of its own (it rides
        // only on a queued job, and this one runs), which flushes it after this one: no second read of the thread.
        if (posted && batch.length === pending.length && pending.length < batchSize) return;
      } catch (err) {
        if (!(err instanceof BatchRefused)) throw err;
        batchSize = 1; // one of them is refused: send them one by one so only that one dies
      }
    }
    if ((await this.#d.store.read.inbound.pending(thread.id, 1)).length > 0) {
      throw new ThreadBacklogError(`thread ${thread.threadId} still has pending items after ${MAX_ROUNDS} rounds`);
    }
  }

  /** Posts `batch`; true once the platform has it and that is recorded, false when it is to be read and tried again. */
  async #post(thread: ThreadRow, batch: InboundRow[], run: Run): Promise<boolean> {
    const body: CreateMessagesRequest = {
      messages: batch.map((m) => ({
        body: m.body,
        thread_id: thread.threadId,
        sender_id: fitId(m.senderId),
        message_id: fitId(m.externalId),
        sender_type: m.senderType,
      })),
      skip_waiting_state: batch.some((m) => m.skipWaitingState),
      close_session: batch.some((m) => m.closeSession),
    };
    const variables = Object.assign({}, ...batch.map((m) => m.variables ?? {})) as Record<string, string | null>;
    if (Object.keys(variables).length > 0) body.variables = variables;

    const registration = await this.#d.registrar.current(thread.connector);
    const started = this.#now();
    let res: CreateMessagesResponse;
    try {
      res = await this.#d.client.createMessages(registration.configId, body, { ...ONE_ATTEMPT, signal: run.signal });
    } catch (err) {
      await this.#failed(err, thread, batch, registration.configId, run, started);
      return false;
    }
    // The platform has them: recorded even across a database outage, or the next run would post them again.
    await this.#durably(run, 'messages posted', (tx) => this.#posted(tx, thread, batch, res, run, started));
    const posted = { thread_id: thread.threadId, chat_id: res.chat_id, messages: batch.length, is_new_session: res.is_new_session };
    this.#d.logger.info({ connector: thread.connector, ...posted }, 'messages posted to the platform');
    this.#live(thread, started, { status: 'posted', ...posted });
    return true;
  }

  async #posted(tx: Repos, thread: ThreadRow, batch: InboundRow[], res: CreateMessagesResponse, run: Run, started: number): Promise<void> {
    const now = this.#now();
    for (const [i, m] of batch.entries()) await tx.inbound.markPosted(m.id, res.chat_id, res.message_ids[i] ?? null, res.is_new_session, now);
    await tx.threads.recordSession(thread.id, res.chat_id, res.mapping_id, now);
    await this.#record(tx, batch, run, started, 'posted', 201, null, res.chat_id);
  }

  /** A write that records what the platform already did: tried again while the store is away (whileStoreUnavailable). */
  #durably(run: Run, what: string, work: (tx: Repos) => Promise<void>): Promise<void> {
    return whileStoreUnavailable(() => this.#d.store.write(work), { signal: run.signal, logger: this.#d.logger, what });
  }

  async #close(thread: ThreadRow, item: InboundRow, run: Run): Promise<void> {
    const registration = await this.#d.registrar.current(thread.connector);
    const started = this.#now();
    let detail: string;
    try {
      detail = (await this.#d.client.closeSession(registration.configId, thread.threadId, { ...ONE_ATTEMPT, signal: run.signal })).message;
    } catch (err) {
      if (err instanceof PlatformHttpError && err.status === 404 && (await this.#configurationExists(registration.configId, run.signal))) {
        // The platform has no session for the thread (never posted, or purged): nothing is left to close.
        await this.#d.store.write(async (tx) => {
          await tx.inbound.markPosted(item.id, null, null, null, this.#now());
          await this.#record(tx, [item], run, started, 'posted', 404, `nothing to close: ${err.detail}`, null);
        });
        this.#d.logger.info({ connector: thread.connector, thread_id: thread.threadId, detail: err.detail }, 'no session to close');
        return;
      }
      return this.#failed(err, thread, [item], registration.configId, run, started);
    }
    await this.#durably(run, 'session closed', async (tx) => {
      await tx.inbound.markPosted(item.id, null, null, null, this.#now());
      await this.#record(tx, [item], run, started, 'posted', 200, null, null);
    });
    this.#d.logger.info({ connector: thread.connector, thread_id: thread.threadId, detail }, 'session closed');
    this.#live(thread, started, { status: 'session_closed', thread_id: thread.threadId });
  }

  #live(thread: ThreadRow, started: number, fields: Record<string, unknown>): void {
    if (this.#d.feed?.listening) this.#d.feed.publish('platform', thread.connector, { ...fields, duration_ms: this.#now() - started });
  }

  async #record(tx: Repos, items: InboundRow[], run: Run, started: number, outcome: InboundOutcome, status: number | null, error: string | null, chatId: string | null): Promise<void> {
    const endedAt = this.#now();
    for (const m of items) {
      await tx.attempts.recordInbound({ inbound: m.id, jobId: run.jobId, attempt: run.attempt, startedAt: started, endedAt, outcome, status, error, chatId });
    }
  }

  async #configurationExists(configId: string, signal: AbortSignal): Promise<boolean> {
    try {
      await this.#d.client.getConfiguration(configId, { ...ONE_ATTEMPT, signal });
      return true;
    } catch (err) {
      if (err instanceof PlatformHttpError && err.status === 404) return false;
      throw err;
    }
  }

  /** Re-registers on a 404, dead-letters the items on other refusals, rethrows what may pass later. */
  async #failed(err: unknown, thread: ThreadRow, items: InboundRow[], configId: string, run: Run, started: number): Promise<void> {
    const status = err instanceof PlatformHttpError ? err.status : null;
    const message = err instanceof Error ? err.message.slice(0, 2_000) : String(err);
    if (run.signal.aborted) throw err;
    this.#live(thread, started, { status: 'failed', thread_id: thread.threadId, http_status: status, error: message, final: run.final });
    if (err instanceof PlatformHttpError && err.status === 404) {
      await this.#d.store.write((tx) => this.#record(tx, items, run, started, 'failed', status, message, null));
      await this.#d.registrar.reregister(this.#d.targetOf(thread.connector), configId);
      return; // the next round sends the same items to the new configuration
    }
    if (isAuthRefusal(err)) {
      // The token is refused, not these items: they stay pending and the job is postponed (see handle).
      run.onFail((tx) => this.#record(tx, items, run, started, 'failed', status, message, null));
      throw err;
    }
    if (err instanceof PlatformResponseError) {
      // The platform took the request (2xx) but its answer is unreadable: sending again would double it.
      await this.#d.store.write(async (tx) => {
        for (const m of items) await tx.inbound.markPosted(m.id, null, null, null, this.#now());
        await this.#record(tx, items, run, started, 'posted', null, `answer unreadable: ${message}`, null);
      });
      this.#d.logger.error({ err, connector: thread.connector, thread_id: thread.threadId }, 'platform answer unreadable; items taken as posted');
      return;
    }
    const permanent = err instanceof PlatformRequestInvalidError || (err instanceof PlatformHttpError && !isRetryable(err));
    if (!permanent && !run.final) {
      run.onFail((tx) => this.#record(tx, items, run, started, 'failed', status, message, null)); // with the job's retry, in one write
      throw err;
    }
    if (permanent && items.length > 1) {
      await this.#d.store.write((tx) => this.#record(tx, items, run, started, 'failed', status, message, null));
      throw new BatchRefused(message);
    }
    const markDead = async (tx: Repos) => {
      for (const m of items) await tx.inbound.markDead(m.id, message);
      await this.#record(tx, items, run, started, 'dead', status, message, null);
    };
    if (!permanent) {
      run.onFail(markDead); // out of attempts: dead with the job, in one write
      throw err;
    }
    await this.#d.store.write(markDead);
    run.refused.push(message); // this one is dead; the flush goes on with the items behind it
  }
}

/** The messages before the first close request, up to and including the first message that closes. */
function leadingBatch(pending: InboundRow[]): InboundRow[] {
  const batch: InboundRow[] = [];
  for (const m of pending) {
    if (m.kind === 'close') break;
    batch.push(m);
    if (m.closeSession) break;
  }
  return batch;
}
