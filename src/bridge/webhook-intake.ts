/**
 * The receiver's logic (the HTTP route is a thin adapter): verify the raw
 * body's signature and timestamp with the connector's current or previous
 * secret, parse and validate the event, dedup on `event_type` + id, then store
 * the delivery and its `connector.deliver` job in ONE transaction. Every
 * refusal is logged and counted; what of it is stored, within which budgets,
 * is refused-webhooks.ts's business.
 */
import type { LiveFeed } from '../base/live-feed.ts';
import type { Logger } from 'pino';
import type { WebhookDedup } from '../config/schema.ts';
import { ThreadgateError } from '../base/errors.ts';
import { SIGNATURE_HEADER, TIMESTAMP_HEADER, verifyWebhook, type SignaturePayload } from '../platform/signature.ts';
import { WebhookEvent, webhookEventKey, webhookEventTime } from '../platform/schemas/unified-messaging.ts';
import type { JobQueue } from '../jobs/queue.ts';
import type { RetryBudget } from '../jobs/retry-budget.ts';
import type { Store } from '../store/database.ts';
import { NotRegisteredError, UnknownConnectorError, WebhookPayloadError } from './errors.ts';
import { WebhookSecrets } from './webhook-secrets.ts';
import { DEFAULT_REFUSAL_LIMITS, RefusedWebhooks, storableHeaders, type NotStoredReason, type RefusalLimits } from './refused-webhooks.ts';

export const DELIVER_JOB = 'connector.deliver';

export interface DeliverJobPayload {
  connector: string;
  delivery: number;
  /** The event's thread_id: its deliveries run one at a time, in the order queued (absent in jobs of older versions). */
  thread?: string;
  /** An operator's replay: recorded as such on the attempt. */
  replay?: boolean;
}

export type IntakeResult = { deliveryId: number; duplicate: boolean };

/**
 * The batch of a webhook's write (store.ts `WriteOptions`): its delivery and its job are rows of its own; what it
 * reads of a neighbour's it reads in one statement (the dedup key's conflict, the take's check of its order key).
 * Urgent: the platform's request waits for its commit.
 */
const WEBHOOK_BATCH = { batch: 'webhook', urgent: true } as const;

/** The order key of a thread's deliveries: one at a time, in the order the platform sent them, on any replica. */
export const deliveryOrder = (connector: string, threadId: string): string => `deliver:${connector}:${threadId}`;


export interface WebhookIntakeDeps {
  store: Store;
  queue: JobQueue;
  isConnector(name: string): boolean;
  signature: { payload: SignaturePayload; toleranceSeconds: number };
  /** What makes two webhooks one event (default: the id at its created_at; with `id`, every `eventAt` is ''). */
  dedup?: WebhookDedup;
  /** How long a connector delivery is retried. */
  budget: RetryBudget;
  logger: Logger;
  /** What is kept of refusals (default DEFAULT_REFUSAL_LIMITS). */
  refusals?: RefusalLimits;
  /** Told the result of every request (for metrics). */
  onResult?: (connector: string, result: 'accepted' | 'duplicate' | 'rejected') => void;
  /** Told of every refusal that was not stored, and why (for metrics). */
  onNotStored?: (connector: string, reason: NotStoredReason) => void;
  /** What listens live (`threadgate listen`): every webhook, accepted or refused, with its raw body. */
  feed?: LiveFeed;
  now?: () => number;
}

export class WebhookIntake {
  readonly #d: WebhookIntakeDeps;
  readonly #now: () => number;
  readonly #refused: RefusedWebhooks;
  readonly #secrets: WebhookSecrets;

  constructor(deps: WebhookIntakeDeps) {
    this.#d = deps;
    this.#now = deps.now ?? Date.now;
    this.#secrets = new WebhookSecrets((connector) => deps.store.read.registrations.get(connector));
    this.#refused = new RefusedWebhooks({
      store: deps.store,
      logger: deps.logger,
      limits: deps.refusals ?? DEFAULT_REFUSAL_LIMITS,
      now: this.#now,
      ...(deps.onNotStored ? { onNotStored: deps.onNotStored } : {}),
    });
  }

  /** Accepts one webhook, or throws the ThreadgateError to answer with (after recording the refusal). */
  async accept(connector: string, rawBody: Buffer, headers: Record<string, string | string[] | undefined>): Promise<IntakeResult> {
    const kept = storableHeaders(headers);
    try {
      if (!this.#d.isConnector(connector)) throw new UnknownConnectorError(`no connector named ${JSON.stringify(connector.slice(0, 64))}`);
      const now = this.#now();
      const verify = (secrets: string[]) =>
        verifyWebhook({
          secrets,
          rawBody,
          signature: single(headers[SIGNATURE_HEADER]),
          timestamp: single(headers[TIMESTAMP_HEADER]),
          payload: this.#d.signature.payload,
          toleranceSeconds: this.#d.signature.toleranceSeconds,
          now,
        });
      const secrets = await this.#secrets.accepted(connector, now);
      if (!secrets) throw new NotRegisteredError(`connector ${connector} has no channel configuration yet`);
      let verified: ReturnType<typeof verify>;
      try {
        verified = verify(secrets);
      } catch (err) {
        const fresh = await this.#secrets.reread(connector, now, secrets); // rotated elsewhere since the last read?
        if (!fresh) throw err;
        verified = verify(fresh);
      }
      const { secretIndex } = verified;
      const text = rawBody.toString('utf8'); // decoded once: parsed, and stored as it came
      const event = parseEvent(text);
      return await this.#store(connector, event, text, kept, secretIndex === 0 ? 'valid' : 'valid-previous-secret');
    } catch (err) {
      if (err instanceof NotRegisteredError) {
        this.#d.onResult?.(connector, 'rejected');
        this.#live(connector, { result: 'rejected', code: err.code, reason: err.message }, rawBody, kept);
        throw err; // the platform cannot have sent it: nothing to record
      }
      // A fault of ours (a failed commit, a closed store) is no refusal of the request: answered 5xx, not recorded.
      if (!(err instanceof ThreadgateError) || err.statusCode >= 500) throw err;
      await this.recordRejected(connector, rawBody, kept, err);
      throw err;
    }
  }

  /** Logs, counts and (within its budgets) stores a refused request; also used by the route for bodies over the limit. */
  async recordRejected(connector: string, rawBody: Buffer, headers: Record<string, unknown>, err: unknown): Promise<void> {
    const code = (err as { code?: unknown }).code;
    const problem = typeof code === 'string' ? code : 'TG_REQUEST_INVALID';
    const message = err instanceof Error ? err.message : String(err);
    const known = this.#d.isConnector(connector);
    // Names from the URL are the caller's choice: every unknown one is counted as one.
    this.#d.onResult?.(known ? connector : '(unknown)', 'rejected');
    this.#live(known ? connector : '(unknown)', { result: 'rejected', code: problem, reason: message }, rawBody, headers);
    const notStored = await this.#refused.record(connector, known, rawBody, headers, problem, err);
    this.#d.logger.info({ connector: connector.slice(0, 64), code: problem, stored: notStored === undefined, ...(notStored ? { not_stored: notStored } : {}) }, `webhook refused: ${message}`);
  }

  async #store(connector: string, event: WebhookEvent, body: string, headers: Record<string, unknown>, verification: string): Promise<IntakeResult> {
    const dedupKey = webhookEventKey(event);
    const eventAt = this.#d.dedup === 'id' ? '' : webhookEventTime(event);
    // Grouped with concurrent webhooks in one commit; resolved only after it. The job runner takes the job in the
    // same write when it has a free slot (the delivery starts as the commit returns), or looks for it after. A batch:
    // on PostgreSQL the webhooks of a group run at once, their statements travelling together (WriteOptions).
    const result = await this.#d.store.write(async (tx): Promise<IntakeResult> => {
      const now = this.#now();
      const base = {
        connector,
        eventType: event.event_type,
        dedupKey,
        eventAt,
        threadId: event.thread_id,
        chatId: event.chat_id,
        body,
        bodyTruncated: false,
        headers,
        verification,
        error: null,
      };
      const stored = await tx.deliveries.insertOriginal({ ...base, duplicateOf: null, status: 'accepted' }, now);
      if (stored === undefined) {
        // Seen before: recorded as a duplicate of the first, and not delivered again; the write's last statement.
        const recording = tx.deliveries.insertDuplicate({ ...base, dedupKey: dedupKey as string }, now);
        tx.sent();
        return { deliveryId: await recording, duplicate: true };
      }
      const { id, jobId } = stored;
      const payload: DeliverJobPayload = { connector, delivery: id, thread: event.thread_id };
      const job = { kind: DELIVER_JOB, payload, orderKey: deliveryOrder(connector, event.thread_id), ...this.#d.budget };
      if (jobId !== undefined) {
        // PostgreSQL: the delivery names the id its job takes already, and its row is not written again.
        await this.#d.queue.enqueue(tx, { ...job, id: jobId }, { last: true });
      } else {
        // The job's id on the delivery goes with the runner's take of the job.
        await this.#d.queue.enqueue(tx, job, { alongside: (newId) => tx.deliveries.setJob(id, newId), last: true });
      }
      return { deliveryId: id, duplicate: false };
    }, WEBHOOK_BATCH);
    this.#d.onResult?.(connector, result.duplicate ? 'duplicate' : 'accepted');
    if (this.#d.feed?.listening) {
      const fields = { result: result.duplicate ? 'duplicate' : 'accepted', delivery_id: result.deliveryId, event_type: event.event_type, thread_id: event.thread_id, chat_id: event.chat_id, verification };
      this.#d.feed.publish('webhook', connector, fields, { body, headers });
    }
    return result;
  }

  #live(connector: string, fields: Record<string, unknown>, rawBody: Buffer, headers: Record<string, unknown>): void {
    if (this.#d.feed?.listening) this.#d.feed.publish('webhook', connector, fields, { body: rawBody.toString('utf8'), headers });
  }
}

function parseEvent(text: string): WebhookEvent {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new WebhookPayloadError(`malformed JSON: ${(err as Error).message}`, []);
  }
  const parsed = WebhookEvent.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message }));
    throw new WebhookPayloadError(`not a known webhook event: ${issues.map((i) => `${i.path || '(body)'}: ${i.message}`).join('; ')}`, issues);
  }
  return parsed.data;
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
