/**
 * `GET /metrics`: Prometheus text from prom-client, on a registry of our own.
 * Counters and histograms are fed by the observation hooks of the receiver,
 * the inbound bridge, the job runner, the platform client and the HTTP app;
 * gauges of jobs by status, of connector, platform and store health (the
 * report /readyz answers with, read once per scrape) and of dead letters and
 * backlog age (store-gauges.ts) are read when scraped. What the alerts and
 * the dashboard of deploy/ read of them: docs/deployment.md, "Monitoring".
 */
import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from './prom-client.ts';
import { CLOSE_SESSION_JOB, PLATFORM_LANES, POST_MESSAGES_JOB } from '../bridge/inbound.ts';
import { DELIVER_JOB } from '../bridge/webhook-intake.ts';
import type { SubmitResult } from '../connector/api.ts';
import type { JobOutcome } from '../jobs/job-run.ts';
import type { Job } from '../jobs/queue.ts';
import type { LaneLoad } from '../jobs/lanes.ts';
import type { PlatformAttemptInfo } from '../platform/http-request.ts';
import { ProxyCallHistogram, type ProxyCall } from './proxy/call-histogram.ts';
import { countJobsByKindAndStatus } from '../store/status-counts.ts';
import type { Store } from '../store/database.ts';
import type { GatewayHealth, HealthReport } from './gateway-health.ts';
import { ResponseCounter } from './response-counter.ts';
import { addStoreGauges } from './store-gauges.ts';

/** The connector a job works for, as its payload names it (every job of the bridge does). */
const connectorOf = (job: Job | undefined): string => {
  const connector = (job?.payload as { connector?: unknown } | undefined)?.connector;
  return typeof connector === 'string' ? connector : '(none)';
};

export class GatewayMetrics {
  readonly registry = new Registry();
  readonly #webhooks: Counter<'connector' | 'result'>;
  readonly #refusalsNotStored: Counter<'connector' | 'reason'>;
  readonly #skipped: Counter<'connector'>;
  readonly #jobRuns: Histogram<'kind' | 'outcome'>;
  readonly #jobRunsByConnector: Counter<'kind' | 'connector' | 'outcome'>;
  readonly #submitted: Counter<'connector' | 'result'>;
  readonly #platform: Histogram<'method' | 'status'>;
  readonly #platformErrors: Counter<'code'>;
  readonly #alerts: Counter<'kind' | 'state' | 'destination' | 'outcome'>;
  readonly #proxied: ProxyCallHistogram;
  /** Answers of the gateway's own routes (installed on the app with the /metrics route). */
  readonly responses: ResponseCounter;
  /** The health report of the scrape under way. */
  #report: Promise<HealthReport> | undefined;

  /** `replica`: a label on every series, so replicas sharing one database are told apart when scraped together. */
  constructor(options: { replica?: string } = {}) {
    if (options.replica !== undefined) this.registry.setDefaultLabels({ replica: options.replica });
    collectDefaultMetrics(this.registry, 'threadgate_');
    this.#webhooks = new Counter({
      name: 'threadgate_webhooks_received_total',
      help: 'Webhooks received from the platform, by connector and result (accepted, duplicate, rejected).',
      labelNames: ['connector', 'result'],
      registers: [this.registry],
    });
    this.#refusalsNotStored = new Counter({
      name: 'threadgate_webhook_refusals_not_stored_total',
      help: 'Refused webhooks that were counted but not stored, by connector ("(unknown)" for unknown names) and reason (unknown_connector, rate, budget).',
      labelNames: ['connector', 'reason'],
      registers: [this.registry],
    });
    this.#skipped = new Counter({
      name: 'threadgate_deliveries_skipped_total',
      help: 'Deliveries a connector skipped (it had no use for the event: a reply suggestion to a system without drafts), by connector.',
      labelNames: ['connector'],
      registers: [this.registry],
    });
    this.#jobRuns = new Histogram({
      name: 'threadgate_job_run_seconds',
      help: 'How long each run of a job took, by kind and outcome (done, queued for a retry, dead, released on stop, postponed while paused).',
      labelNames: ['kind', 'outcome'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [this.registry],
    });
    this.#jobRunsByConnector = new Counter({
      name: 'threadgate_job_runs_total',
      help: 'Runs of jobs by kind, the connector they work for and outcome: platform.* posts a connector\'s inbound messages, connector.deliver delivers a webhook (done, queued for a retry, dead, released, postponed).',
      labelNames: ['kind', 'connector', 'outcome'],
      registers: [this.registry],
    });
    this.#submitted = new Counter({
      name: 'threadgate_inbound_submitted_total',
      help: 'Messages connectors submitted, by connector and result (stored, or duplicate of one stored before).',
      labelNames: ['connector', 'result'],
      registers: [this.registry],
    });
    this.responses = new ResponseCounter(this.registry);
    this.#platform = new Histogram({
      name: 'threadgate_platform_request_seconds',
      help: 'Requests to the platform API by method and HTTP status ("none" when no answer came).',
      labelNames: ['method', 'status'],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [this.registry],
    });
    this.#proxied = new ProxyCallHistogram({ // label sets bound once: a proxied call only adds to its series
      name: 'threadgate_proxy_request_seconds',
      help: 'Calls through the proxy by client, method, documented path template and status.',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [this.registry],
    });
    this.#platformErrors = new Counter({
      name: 'threadgate_platform_request_errors_total',
      help: 'Failed platform requests by error code (TG_PLATFORM_*).',
      labelNames: ['code'],
      registers: [this.registry],
    });
    this.#alerts = new Counter({
      name: 'threadgate_alerts_sent_total',
      help: 'Tries to send an alert (docs/alerts.md) by kind, state (firing, resolved), destination (webhook, email) and outcome (sent, failed).',
      labelNames: ['kind', 'state', 'destination', 'outcome'],
      registers: [this.registry],
    });
  }

  /** A try to send an alert ended (src/alerts/). */
  readonly alertTold = (alert: { kind: string; state: string }, destination: string, outcome: 'sent' | 'failed'): void => {
    this.#alerts.inc({ kind: alert.kind, state: alert.state, destination, outcome });
  };

  readonly proxied = (call: ProxyCall): void => {
    this.#proxied.observe(call);
  };

  readonly webhook = (connector: string, result: 'accepted' | 'duplicate' | 'rejected'): void => {
    this.#webhooks.inc({ connector, result });
  };

  readonly webhookNotStored = (connector: string, reason: string): void => {
    this.#refusalsNotStored.inc({ connector, reason });
  };

  readonly deliverySkipped = (connector: string): void => {
    this.#skipped.inc({ connector });
  };

  readonly jobFinished = (kind: string, outcome: JobOutcome, seconds: number, job?: Job): void => {
    this.#jobRuns.observe({ kind, outcome }, seconds);
    this.#jobRunsByConnector.inc({ kind, connector: connectorOf(job), outcome });
  };

  readonly inboundSubmitted = (connector: string, results: readonly SubmitResult[]): void => {
    let duplicates = 0;
    for (const r of results) if (r.duplicate) duplicates += 1;
    if (results.length > duplicates) this.#submitted.inc({ connector, result: 'stored' }, results.length - duplicates);
    if (duplicates > 0) this.#submitted.inc({ connector, result: 'duplicate' }, duplicates);
  };

  /** The bridge's observation hooks, all fed into these metrics. */
  bridgeHooks() {
    const { jobFinished, webhook, webhookNotStored, deliverySkipped, inboundSubmitted } = this;
    return { jobFinished, webhook, webhookNotStored, deliverySkipped, inboundSubmitted };
  }

  readonly platformAttempt = (a: PlatformAttemptInfo): void => {
    this.#platform.observe({ method: a.method, status: a.status === undefined ? 'none' : String(a.status) }, a.durationMs / 1000);
    if (a.error !== undefined) this.#platformErrors.inc({ code: a.error });
  };

  /** The Prometheus text of every metric, the scrape-time gauges read afresh. */
  scrape(): Promise<string> {
    this.#report = undefined;
    return this.registry.metrics();
  }

  /** Gauges read at scrape time from the store, the health report and the job runner's lanes. */
  addScrapeGauges(store: Store, health: GatewayHealth, lanes: () => readonly LaneLoad[] = () => []): void {
    // One report per scrape: taken when the first gauge of a scrape asks, and read by the others of it.
    const report = () => (this.#report ??= health.report());
    new Gauge({
      name: 'threadgate_jobs',
      help: 'Jobs in the queue by kind and status.',
      labelNames: ['kind', 'status'],
      registers: [this.registry],
      async collect() {
        this.reset();
        // Left empty while the store does not answer: threadgate_store_up says so, and the scrape still succeeds.
        const rows = await countJobsByKindAndStatus(store.read.sql).catch(() => []);
        for (const r of rows) this.set({ kind: r.kind, status: r.status }, r.n);
      },
    });
    addStoreGauges({ registry: this.registry, sql: () => store.read.sql, report, kinds: [POST_MESSAGES_JOB, CLOSE_SESSION_JOB, DELIVER_JOB] });
    const roundTrips = store.roundTrips?.bind(store);
    if (roundTrips) {
      new Counter({
        name: 'threadgate_store_round_trips_total',
        help: 'Round trips to the PostgreSQL store: statements sent while none awaited its answer (store/postgres/connection-traffic.ts).',
        registers: [this.registry],
        collect() {
          this.reset();
          this.inc(roundTrips());
        },
      });
    }
    const perConnector = (name: string, help: string, value: (c: HealthReport['connectors'][string]) => boolean) =>
      new Gauge({
        name,
        help,
        labelNames: ['connector'],
        registers: [this.registry],
        async collect() {
          this.reset();
          for (const [connector, c] of Object.entries((await report()).connectors)) this.set({ connector }, value(c) ? 1 : 0);
        },
      });
    perConnector('threadgate_connector_up', 'Whether each connector is up (1): its own report ok, its channel registered, its platform posts not paused.', (c) => c.up);
    perConnector('threadgate_connector_paused', 'Whether the platform posts of each connector are paused (1) because the platform refused the token.', (c) => c.paused !== null);
    const platform = (name: string, help: string, value: (p: NonNullable<HealthReport['platform']>) => boolean) =>
      new Gauge({
        name,
        help,
        registers: [this.registry],
        async collect() {
          const p = (await report()).platform;
          this.set(p === null || value(p) ? 1 : 0);
        },
      });
    const platformLanes = (name: string, help: string, value: (l: LaneLoad) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['connector'],
        registers: [this.registry],
        collect() {
          this.reset();
          for (const l of lanes()) if (l.group === PLATFORM_LANES) this.set({ connector: l.lane }, value(l));
        },
      });
    platformLanes('threadgate_platform_posts_running', 'Platform posts and closes of each connector running in this process now.', (l) => l.running);
    platformLanes('threadgate_platform_posts_concurrency', 'How many of them may run at once (platform_concurrency, default jobs.concurrency).', (l) => l.limit);
    platform('threadgate_platform_up', 'Whether the platform answered the last call (1; also before the first call) or not (0).', (p) => p.up !== false);
    platform('threadgate_platform_auth_ok', 'Whether the platform accepts the gateway token (0 after a 401 or 403 until an accepted call).', (p) => p.auth !== 'refused');
  }
}

export function registerMetricsRoute(app: FastifyInstance, metrics: GatewayMetrics): void {
  metrics.responses.install(app);
  app.get('/metrics', async (_request, reply) => {
    const text = await metrics.scrape();
    return reply.header('content-type', metrics.registry.contentType).send(text);
  });
}
