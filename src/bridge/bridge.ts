/**
 * The bridge assembled: repositories over the store, the platform client,
 * registration, the inbound and outbound halves, and the job kinds they
 * enqueue registered on one runner. The composition root creates one.
 */
import type { Logger } from 'pino';
import type { WebhookDedup } from '../config/schema.ts';
import type { ConnectorInstance, SubmitResult } from '../connector/api.ts';
import type { BackoffPolicy } from '../jobs/backoff.ts';
import { JobQueue } from '../jobs/queue.ts';
import type { RetryBudget } from '../jobs/retry-budget.ts';
import { JobRunner, type RunnerOptions } from '../jobs/runner.ts';
import type { SignaturePayload } from '../platform/signature.ts';
import type { UnifiedMessagingClient } from '../platform/unified-messaging-client.ts';
import type { Store } from '../store/database.ts';
import type { LiveFeed } from '../base/live-feed.ts';
import { AuthPause } from './auth-pause.ts';
import { DeliveryHealth, type DeliveryHealthRules } from './delivery-health.ts';
import { CLOSE_SESSION_JOB, InboundBridge, PLATFORM_LANES, POST_MESSAGES_JOB, type ThreadJobPayload } from './inbound.ts';
import { OutboundDispatch } from './outbound-dispatch.ts';
import type { RefusalLimits } from './refused-webhooks.ts';
import type { StoreLock } from './store-lock.ts';
import { Registrar, type RegistrationTarget } from './registrar.ts';
import { Replayer } from './replay.ts';
import { ThreadSync } from './thread-sync.ts';
import { DELIVER_JOB, WebhookIntake, type DeliverJobPayload, type WebhookIntakeDeps } from './webhook-intake.ts';

export interface BridgeOptions {
  store: Store;
  client: UnifiedMessagingClient;
  logger: Logger;
  /** Who owns a name: the connector runtime. */
  connectors: { has(name: string): boolean; instanceOf(name: string): ConnectorInstance | undefined };
  targetOf(connector: string): RegistrationTarget;
  signature: { payload: SignaturePayload; toleranceSeconds: number };
  /** What makes two webhooks one event (default: the id at its created_at). */
  webhookDedup?: WebhookDedup;
  /** How long connector deliveries and platform POSTs are retried, and how far apart. */
  jobs: {
    delivery: RetryBudget;
    platform: RetryBudget;
    backoff: BackoffPolicy;
    /** Jobs of one kind running at once (of one connector, for its platform posts). */
    concurrency: number;
    /** A connector's platform posts and closes running at once, when its entry sets it (default `concurrency`). */
    platformConcurrency?: (connector: string) => number | undefined;
    leaseMs?: number;
    pollMs?: number;
  };
  /** Bodies of delivered webhooks kept up to this size. */
  maxStoredBodyBytes: number;
  /** When a connector whose deliveries keep failing counts as down (default: 3 in a row, or none succeeding for 5 minutes). */
  deliveryHealth?: DeliveryHealthRules;
  /** What is kept of refused webhooks. */
  refusals: RefusalLimits;
  /** A lock across replicas on one database (store-lock.ts), for registering channels; absent: one process. */
  lock?: StoreLock;
  /** Observation hooks (metrics). */
  observe?: {
    jobFinished?: RunnerOptions['onJobFinished'];
    webhook?: WebhookIntakeDeps['onResult'];
    webhookNotStored?: WebhookIntakeDeps['onNotStored'];
    deliverySkipped?: (connector: string) => void;
    inboundSubmitted?: (connector: string, results: readonly SubmitResult[]) => void;
  };
  /** What listens live (`threadgate listen`, the admin page's live view). */
  feed?: LiveFeed;
}

export class Bridge {
  readonly queue: JobQueue;
  readonly runner: JobRunner;
  readonly registrar: Registrar;
  /** Platform posts paused per connector while the platform refuses the token. */
  readonly pause: AuthPause;
  /** Each connector's run of failed deliveries, for its health. */
  readonly deliveryHealth: DeliveryHealth;
  readonly inbound: InboundBridge;
  readonly intake: WebhookIntake;
  readonly replayer: Replayer;

  constructor(o: BridgeOptions) {
    const logger = o.logger;
    this.queue = new JobQueue(o.store, { backoff: o.jobs.backoff });
    this.runner = new JobRunner(this.queue, {
      logger: logger.child({ room: 'jobs' }),
      ...(o.jobs.pollMs ? { pollMs: o.jobs.pollMs } : {}),
      ...(o.observe?.jobFinished ? { onJobFinished: o.observe.jobFinished } : {}),
    });
    this.pause = new AuthPause({
      // Re-check: the connector's configuration, read with the token; or registering it when it has none yet.
      probe: async (connector, signal) => {
        const row = await o.store.read.registrations.get(connector);
        if (row) await o.client.getConfiguration(row.configId, { retry: { attempts: 1 }, signal });
        else await this.registrar.ensure(o.targetOf(connector));
      },
      onResume: (_connector, jobs) => {
        void this.queue
          .hurry(jobs)
          .catch((err: unknown) => logger.error({ err }, 'making the postponed jobs due failed'))
          .finally(() => this.runner.notify());
      },
      logger: logger.child({ room: 'bridge' }),
    });
    this.registrar = new Registrar({
      client: o.client,
      store: o.store,
      logger,
      onAuthRefused: (connector, err) => this.pause.pause(connector, err),
      ...(o.lock ? { lock: o.lock } : {}),
    });
    const notify = (kind: string) => this.runner.notify(kind);

    this.inbound = new InboundBridge({
      store: o.store,
      queue: this.queue,
      budget: o.jobs.platform,
      ...(o.observe?.inboundSubmitted ? { onSubmitted: o.observe.inboundSubmitted } : {}),
    });
    this.intake = new WebhookIntake({
      store: o.store,
      queue: this.queue,
      isConnector: (name) => o.connectors.has(name),
      signature: o.signature,
      ...(o.webhookDedup ? { dedup: o.webhookDedup } : {}),
      budget: o.jobs.delivery,
      logger: logger.child({ room: 'receiver' }),
      refusals: o.refusals,
      ...(o.observe?.webhook ? { onResult: o.observe.webhook } : {}),
      ...(o.observe?.webhookNotStored ? { onNotStored: o.observe.webhookNotStored } : {}),
      ...(o.feed ? { feed: o.feed } : {}),
    });
    const sync = new ThreadSync({
      store: o.store,
      client: o.client,
      registrar: this.registrar,
      pause: this.pause,
      targetOf: o.targetOf,
      logger,
      ...(o.feed ? { feed: o.feed } : {}),
    });
    this.deliveryHealth = new DeliveryHealth(o.deliveryHealth);
    const dispatch = new OutboundDispatch({
      store: o.store,
      maxStoredBodyBytes: o.maxStoredBodyBytes,
      health: this.deliveryHealth,
      ...(o.observe?.deliverySkipped ? { onSkipped: o.observe.deliverySkipped } : {}),
      instanceOf: (name) => o.connectors.instanceOf(name),
      logger,
      ...(o.feed ? { feed: o.feed } : {}),
    });
    this.replayer = new Replayer({
      store: o.store,
      queue: this.queue,
      deliveryBudget: o.jobs.delivery,
      platformBudget: o.jobs.platform,
      notify,
    });
    const kind = { concurrency: o.jobs.concurrency, ...(o.jobs.leaseMs ? { leaseMs: o.jobs.leaseMs } : {}) };
    // A connector's posts and closes share its lane's slots: its backlog never holds back another connector's.
    const { platformConcurrency } = o.jobs;
    const lanes = { group: PLATFORM_LANES, concurrency: (connector: string) => platformConcurrency?.(connector) ?? o.jobs.concurrency };
    this.runner.register<ThreadJobPayload>(POST_MESSAGES_JOB, { handler: sync.handle, ...kind, lanes });
    this.runner.register<ThreadJobPayload>(CLOSE_SESSION_JOB, { handler: sync.handle, ...kind, lanes });
    // A delivered webhook's record is its delivery (status, attempts): its done job is deleted, not kept.
    const deliver = { handler: dispatch.handle, ...kind, takeOnEnqueue: true, forgetDone: true, onClaim: dispatch.openAttempt };
    this.runner.register<DeliverJobPayload>(DELIVER_JOB, deliver);
  }
}
