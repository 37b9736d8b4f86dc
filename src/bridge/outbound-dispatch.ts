/**
 * The outbound flow's job: hand one stored webhook delivery to its
 * connector's `deliver`, one at a time per thread, and record the outcome on
 * the delivery (`delivered` with the external id, `skipped` with the
 * connector's reason when it had no use for the event, `failed` while
 * retrying, `dead` when the job gives up).
 */
import type { LiveFeed } from '../base/live-feed.ts';
import type { Logger } from 'pino';
import type { ConnectorInstance, Thread } from '../connector/api.ts';
import { describeFailure, PermanentJobError } from '../jobs/errors.ts';
import type { Job } from '../jobs/queue.ts';
import type { JobContext } from '../jobs/job-run.ts';
import { WebhookEvent } from '../platform/schemas/unified-messaging.ts';
import type { Store } from '../store/database.ts';
import type { Repos } from '../store/repos.ts';
import type { DeliveryToSend, OpenedAttempt } from '../store/delivery-statements.ts';
import type { ThreadRow } from '../store/threads-repo.ts';
import type { DeliveryHealth } from './delivery-health.ts';
import { KeyedMutex } from './keyed-mutex.ts';
import type { DeliverJobPayload } from './webhook-intake.ts';

export interface OutboundDispatchDeps {
  store: Store;
  /** Bodies of delivered webhooks are cut to this many bytes (the cut is recorded). */
  maxStoredBodyBytes: number;
  instanceOf(connector: string): ConnectorInstance | undefined;
  /** Told each attempt's outcome, for the connector's health. */
  health?: DeliveryHealth;
  /** A delivery the connector skipped (metrics). */
  onSkipped?: (connector: string) => void;
  /** What listens live: each attempt's outcome and duration. */
  feed?: LiveFeed;
  logger: Logger;
  now?: () => number;
}

export function toThreadView(row: ThreadRow, references: string[]): Thread {
  return {
    key: row.threadKey,
    threadId: row.threadId,
    chatId: row.chatId,
    references,
    closed: row.closed,
    createdAt: new Date(row.createdAt),
  };
}

export class OutboundDispatch {
  readonly #d: OutboundDispatchDeps;
  readonly #now: () => number;
  readonly #mutex = new KeyedMutex();

  constructor(deps: OutboundDispatchDeps) {
    this.#d = deps;
    this.#now = deps.now ?? Date.now;
  }

  readonly handle = async (payload: DeliverJobPayload, ctx: JobContext<DeliverJobPayload>): Promise<void> => {
    const claimed = ctx.claimed as OpenedAttempt | undefined;
    const attempt: OpenAttempt = { id: claimed?.attempt };
    try {
      // A job that names its thread takes the thread's lock before anything is awaited, so a thread's jobs enter it
      // in the order they were claimed: a store read first would let a later job overtake where reads settle in any
      // order (PostgreSQL). A job queued before payloads named the thread reads its delivery first.
      if (payload.thread !== undefined) {
        return await this.#mutex.run(lockKey(payload.connector, payload.thread), async () =>
          this.#deliver(payload, ctx, await this.#load(payload, claimed?.delivery), attempt),
        );
      }
      const loaded = await this.#load(payload, claimed?.delivery);
      await this.#mutex.run(lockKey(payload.connector, loaded.event.thread_id), () => this.#deliver(payload, ctx, loaded, attempt));
    } catch (err) {
      if (attempt.id !== undefined) await this.#closeAttempt(ctx, attempt.id, err);
      throw err;
    }
  };

  /** The attempt's end when the run failed: aborted by a stop (written now), else with the job's failure record. */
  async #closeAttempt(ctx: JobContext<DeliverJobPayload>, id: number, err: unknown): Promise<void> {
    const at = this.#now();
    if (ctx.signal.aborted) {
      await this.#d.store.write((tx) => tx.attempts.closeDelivery(id, 'aborted', 'the gateway stopped during the attempt', null, at));
      return;
    }
    const { final, message } = failureOf(err, ctx);
    ctx.onFail((tx) => tx.attempts.closeDelivery(id, final ? 'dead' : 'failed', message, null, at));
  }

  /**
   * The runner's `onClaim`: the attempt is opened in the write that claims (or takes) the job, so a delivery costs no
   * commit of its own before the hand-over, and a crash during it still leaves the attempt open in the log. The
   * delivery is read there too and handed to the run: the writer has just written or looked at its pages, where a
   * read on the reading connection after a commit starts from an empty page cache (5 µs a delivery; 11 % of the
   * drain's main thread). One statement does both (the claim's last, with its COMMIT on PostgreSQL). A delivery
   * gone (retention) opens nothing; the run then fails on it.
   */
  readonly openAttempt = async (tx: Repos, job: Job<DeliverJobPayload>): Promise<OpenedAttempt | undefined> =>
    tx.deliveries.openAttempt(job.payload.delivery, job.id, job.attempts, job.payload.replay === true, this.#now());

  /** The delivery (`claimed`: as read in the claiming write; otherwise read now), its connector and its event. */
  async #load(payload: DeliverJobPayload, claimed: DeliveryToSend | undefined): Promise<Loaded> {
    const delivery = claimed ?? (await this.#d.store.read.deliveries.byId(payload.delivery));
    if (!delivery) throw new PermanentJobError(`delivery ${payload.delivery} does not exist`);
    const instance = this.#d.instanceOf(payload.connector);
    if (!instance) throw new PermanentJobError(`connector ${payload.connector} is not configured`);
    return { delivery, instance, event: WebhookEvent.parse(JSON.parse(delivery.body)) };
  }

  /** One attempt, inside the thread's lock. */
  async #deliver(payload: DeliverJobPayload, ctx: JobContext<DeliverJobPayload>, { delivery, instance, event }: Loaded, attempt: OpenAttempt): Promise<void> {
    const { store } = this.#d;
    const row = await store.read.threads.byThreadId(payload.connector, event.thread_id);
    const thread = row && toThreadView({ ...row, chatId: event.chat_id }, await store.read.threads.references(row.id));
    const now = this.#now();
    const newSession = row !== undefined && row.chatId !== event.chat_id;
    if (newSession || attempt.id === undefined) {
      // A new session of the thread recorded (and the attempt opened, when the claim did not), in one grouped write.
      attempt.id = await store.write(async (tx) => {
        if (row && newSession) await tx.threads.recordSession(row.id, event.chat_id, row.mappingId, now);
        return attempt.id ?? tx.attempts.openDelivery(delivery.id, ctx.job.id, ctx.job.attempts, payload.replay === true, now);
      });
    }
    const attemptId = attempt.id;
    const started = performance.now();
    const live = (fields: Record<string, unknown>) =>
      this.#d.feed?.listening &&
      this.#d.feed.publish('delivery', payload.connector, { delivery_id: delivery.id, event_type: event.event_type, thread_id: event.thread_id, chat_id: event.chat_id, attempt: ctx.job.attempts, duration_ms: Math.round(performance.now() - started), ...fields });
    try {
      const result = await instance.deliver(event, thread, { signal: ctx.signal, attempt: ctx.job.attempts });
      const externalId = result?.externalId ?? null;
      const skipped = skipReason(result?.skipped);
      const outcome = skipped === null ? 'delivered' : 'skipped';
      // The outcome and the job's completion in one commit: a stop right after cannot deliver it again.
      ctx.complete(async (tx) => {
        const at = this.#now();
        // The body read above is what is stored (or longer: a cap only cuts), so one within the cap needs no cut.
        const cut = Buffer.byteLength(delivery.body) > this.#d.maxStoredBodyBytes;
        // At once (on PostgreSQL one round trip), in this order. A skip's reason is kept where an error would be.
        await Promise.all([
          tx.attempts.closeDelivery(attemptId, outcome, skipped, externalId, at),
          tx.deliveries.recordOutcome(delivery.id, outcome, skipped, externalId, at),
          cut ? tx.deliveries.capBody(delivery.id, this.#d.maxStoredBodyBytes) : undefined,
        ]);
      });
      this.#d.health?.succeeded(payload.connector);
      if (skipped !== null) this.#d.onSkipped?.(payload.connector);
      live({ status: outcome, external_id: externalId, ...(skipped === null ? {} : { reason: skipped }) });
      ctx.logger.info(
        {
          connector: payload.connector,
          delivery_id: delivery.id,
          event_type: event.event_type,
          external_id: externalId,
          replay: payload.replay === true,
          ...(skipped === null ? {} : { reason: skipped }),
        },
        outcome,
      );
    } catch (err) {
      if (!ctx.signal.aborted) {
        const at = this.#now();
        const { final, message } = failureOf(err, ctx);
        this.#d.health?.failed(payload.connector, message);
        live({ status: final ? 'dead' : 'failed', error: message });
        // Committed with the job's own failure record (the runner's), in one write; the attempt is closed by `handle`.
        ctx.onFail((tx) => tx.deliveries.recordOutcome(delivery.id, final ? 'dead' : 'failed', message, null, at));
      }
      throw err;
    }
  }
}

/** A connector's reason to skip, as recorded (null: it delivered); an empty reason still says it skipped. */
function skipReason(skipped: unknown): string | null {
  if (skipped === undefined || skipped === null || skipped === false) return null;
  const text = typeof skipped === 'string' ? skipped.trim() : '';
  return (text === '' ? 'skipped by the connector' : text).slice(0, 2_000);
}

/** Whether a failure ends the job (permanent, or its last try), and its message as recorded. */
function failureOf(err: unknown, ctx: JobContext<DeliverJobPayload>): { final: boolean; message: string } {
  const final = describeFailure(err).permanent || ctx.job.lastTry;
  const message = (err instanceof Error ? `${(err as { code?: string }).code ?? err.name}: ${err.message}` : String(err)).slice(0, 2_000);
  return { final, message };
}

/** The run's attempt row, once opened (by the claim, or by the run). */
interface OpenAttempt {
  id: number | undefined;
}

const lockKey = (connector: string, threadId: string) => `${connector}\u0000${threadId}`;

interface Loaded {
  delivery: DeliveryToSend;
  instance: ConnectorInstance;
  event: WebhookEvent;
}
