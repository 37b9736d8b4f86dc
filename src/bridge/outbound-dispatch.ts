/**
 * The outbound flow's job: hand one stored webhook delivery to its
 * connector's `deliver`, one at a time per thread, and record the outcome on
 * the delivery (`delivered` with the external id, `failed` while retrying,
 * `dead` when the job gives up).
 */
import type { Logger } from 'pino';
import type { ConnectorInstance, Thread } from '../connector/api.ts';
import { describeFailure, PermanentJobError } from '../jobs/errors.ts';
import type { JobContext } from '../jobs/runner.ts';
import { WebhookEvent } from '../platform/schemas/unified-messaging.ts';
import type { Store } from '../store/database.ts';
import type { DeliveryRow } from '../store/deliveries-repo.ts';
import type { ThreadRow } from '../store/threads-repo.ts';
import { KeyedMutex } from './keyed-mutex.ts';
import type { DeliverJobPayload } from './webhook-intake.ts';

export interface OutboundDispatchDeps {
  store: Store;
  /** Bodies of delivered webhooks are cut to this many bytes (the cut is recorded). */
  maxStoredBodyBytes: number;
  instanceOf(connector: string): ConnectorInstance | undefined;
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
    // A job that names its thread takes the thread's lock before anything is awaited, so a thread's jobs enter it in
    // the order they were claimed: a store read first would let a later job overtake where reads settle in any order
    // (PostgreSQL). A job queued before payloads named the thread reads its delivery first.
    if (payload.thread !== undefined) {
      return this.#mutex.run(lockKey(payload.connector, payload.thread), async () => this.#deliver(payload, ctx, await this.#load(payload)));
    }
    const loaded = await this.#load(payload);
    await this.#mutex.run(lockKey(payload.connector, loaded.event.thread_id), () => this.#deliver(payload, ctx, loaded));
  };

  async #load(payload: DeliverJobPayload): Promise<Loaded> {
    const delivery = await this.#d.store.read.deliveries.byId(payload.delivery);
    if (!delivery) throw new PermanentJobError(`delivery ${payload.delivery} does not exist`);
    const instance = this.#d.instanceOf(payload.connector);
    if (!instance) throw new PermanentJobError(`connector ${payload.connector} is not configured`);
    return { delivery, instance, event: WebhookEvent.parse(JSON.parse(delivery.body)) };
  }

  /** One attempt, inside the thread's lock. */
  async #deliver(payload: DeliverJobPayload, ctx: JobContext<DeliverJobPayload>, { delivery, instance, event }: Loaded): Promise<void> {
    const { store } = this.#d;
    const row = await store.read.threads.byThreadId(payload.connector, event.thread_id);
    const thread = row && toThreadView({ ...row, chatId: event.chat_id }, await store.read.threads.references(row.id));
    const now = this.#now();
    // The attempt opened, and a new session of the thread recorded, in one grouped write.
    const attemptId = await store.write(async (tx) => {
      if (row && row.chatId !== event.chat_id) await tx.threads.recordSession(row.id, event.chat_id, row.mappingId, now);
      return tx.attempts.openDelivery(delivery.id, ctx.job.id, ctx.job.attempts, payload.replay === true, now);
    });
    try {
      const result = await instance.deliver(event, thread, { signal: ctx.signal, attempt: ctx.job.attempts });
      const externalId = result?.externalId ?? null;
      // The outcome and the job's completion in one commit: a stop right after cannot deliver it again.
      ctx.complete(async (tx) => {
        const at = this.#now();
        await tx.attempts.closeDelivery(attemptId, 'delivered', null, externalId, at);
        await tx.deliveries.recordOutcome(delivery.id, 'delivered', null, externalId, at);
        await tx.deliveries.capBody(delivery.id, this.#d.maxStoredBodyBytes);
      });
      ctx.logger.info(
        { connector: payload.connector, delivery_id: delivery.id, event_type: event.event_type, external_id: externalId, replay: payload.replay === true },
        'delivered',
      );
    } catch (err) {
      const at = this.#now();
      if (ctx.signal.aborted) {
        await store.write((tx) => tx.attempts.closeDelivery(attemptId, 'aborted', 'the gateway stopped during the attempt', null, at));
        throw err;
      }
      const final = describeFailure(err).permanent || ctx.job.lastTry;
      const message = (err instanceof Error ? `${(err as { code?: string }).code ?? err.name}: ${err.message}` : String(err)).slice(0, 2_000);
      // Committed with the job's own failure record (the runner's), in one write.
      ctx.onFail(async (tx) => {
        await tx.attempts.closeDelivery(attemptId, final ? 'dead' : 'failed', message, null, at);
        await tx.deliveries.recordOutcome(delivery.id, final ? 'dead' : 'failed', message, null, at);
      });
      throw err;
    }
  }
}

const lockKey = (connector: string, threadId: string) => `${connector}\u0000${threadId}`;

interface Loaded {
  delivery: DeliveryRow;
  instance: ConnectorInstance;
  event: WebhookEvent;
}
