/**
 * The composition root of `serve`: store, platform (the configured one, or the
 * embedded sandbox when no platform.url is set), connectors, bridge, job
 * runner and the HTTP app — started in that order. The HTTP server listens
 * before the channels are registered (registration sends the public URL);
 * `/readyz` answers 503 until each is registered or known from the store.
 * Stopping: connector loops are signalled, the HTTP server drains, the job
 * runner finishes or releases its jobs, then connectors stop and the store
 * closes.
 */
import { LiveFeed } from '../base/live-feed.ts';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { FastifyInstance } from 'fastify';
import { Bridge } from '../bridge/bridge.ts';
import { HttpAttachmentFetcher } from '../bridge/attachment-fetcher.ts';
import { createConnectorContext } from '../bridge/connector-context.ts';
import { createFileLinks, loadLinkKey } from '../bridge/file-links.ts';
import { FileService, fileLifetimeMs } from '../bridge/files.ts';
import { createSealer } from '../bridge/sealer.ts';
import { storeLock } from '../bridge/store-lock.ts';
import { refusalLimits } from '../bridge/refused-webhooks.ts';
import { retentionOf, startRetention } from '../bridge/retention.ts';
import type { RegistrationTarget } from '../bridge/registrar.ts';
import type { LoadedSettings } from '../config/load.ts';
import type { ConnectorEntry } from '../config/schema.ts';
import { assertNoEntryProblems, loadConnectors } from '../connector/registry.ts';
import { ConnectorRuntime } from '../connector/runtime.ts';
import { buildApp } from '../http/app.ts';
import { GatewayHealth } from '../http/gateway-health.ts';
import { GatewayMetrics } from '../http/metrics.ts';
import type { Logger } from '../log/logger.ts';
import { PlatformHttpClient } from '../platform/http-client.ts';
import { PlatformHealth } from '../platform/platform-health.ts';
import { createUnifiedMessagingClient } from '../platform/unified-messaging-client.ts';
import type { RunningSandbox } from '../sandbox/index.ts';
import { reloadConnector } from './connector-reload.ts';
import { DEMO_CONNECTOR, logDemoSteps } from './demo.ts';
import { platformTarget, sandboxFileOf } from './platform-target.ts';
import { retryPolicy } from './retry-policy.ts';
import { reloadableConnectors, reloadSettings, type ReloadTarget } from './reload.ts';
import { openSettingsStore } from './store-access.ts';

export type { PlatformTarget } from './platform-target.ts';

import type { GatewayOverrides, RunningGateway } from './running-gateway.ts';

export type { GatewayOverrides, RunningGateway } from './running-gateway.ts';

export async function startGateway(
  loaded: LoadedSettings,
  logger: Logger,
  overrides: GatewayOverrides = {},
): Promise<RunningGateway> {
  const { settings, baseDir } = loaded;
  const embedded = settings.platform.url === undefined;
  const entries: ConnectorEntry[] = embedded && settings.connectors.length === 0 ? [DEMO_CONNECTOR] : [...settings.connectors];
  const connectorsLoaded = await loadConnectors(entries, baseDir);
  assertNoEntryProblems(loaded.file ?? 'settings', connectorsLoaded.problems);

  const store = await openSettingsStore(loaded, { logger, backgroundCheckpoints: { logger } });
  let sandbox: RunningSandbox | null = null;
  let app: FastifyInstance | null = null;
  // Several replicas may share a PostgreSQL store: each connector's poller runs on one of them at a time (a lease),
  // and channel registration takes a lock across them. A SQLite file has one gateway: its pollers just run (no
  // lease to wait out after a crash).
  const replica = `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
  const pollers = store.backend === 'postgres' ? { store, holder: replica, ttlMs: settings.jobs.lease_seconds * 1000 } : undefined;
  // Registering a channel calls the platform several times, pruning deletes in batches: 60 s bounds a dead replica's hold.
  const lock = store.backend === 'postgres' ? storeLock(store, replica, 60_000) : undefined;
  const runtime = new ConnectorRuntime(logger.child({ room: 'connector' }), { ...(pollers ? { pollers } : {}) });
  const registering = new AbortController();
  let http: PlatformHttpClient | null = null;
  const metrics = new GatewayMetrics(store.backend === 'postgres' ? { replica } : {});
  const feed = new LiveFeed(); // what `threadgate listen` and the admin page's live view read
  /** What a start that fails half-way must stop again, last started first. */
  const undo: (() => unknown)[] = [];
  /** What a SIGHUP reloads, once the gateway runs; its `settings` are those in force. */
  let reloadTarget: ReloadTarget | undefined;
  try {
    const target = await platformTarget(settings, logger, sandboxFileOf(loaded));
    sandbox = target.sandbox;
    const { platform } = target;
    const platformHealth = new PlatformHealth({
      probe: (signal) => client.listConfigurationsPage({ pageSize: 1, retry: { attempts: 1 }, signal }),
      logger: logger.child({ room: 'platform' }),
      ...(overrides.platformProbeMs ? { idleMs: overrides.platformProbeMs } : {}),
    });
    undo.push(() => platformHealth.close());
    http = new PlatformHttpClient({
      baseUrl: platform.url,
      token: platform.token,
      tokenType: platform.tokenType,
      timeoutMs: settings.platform.timeout_ms,
      logger: logger.child({ room: 'platform' }),
      onAttempt: (attempt) => {
        metrics.platformAttempt(attempt);
        platformHealth.observe(attempt);
      },
    });
    const client = createUnifiedMessagingClient({ http, organizationId: platform.organizationId });
    const platformHttp = http;

    let publicUrl = '';
    const targetOf = (name: string): RegistrationTarget => {
      const entry = entries.find((e) => e.name === name) as ConnectorEntry;
      return {
        connector: name,
        messagingChannel: entry.messaging_channel ?? entry.type,
        roomId: entry.room_id ?? (platform.defaultRoomId as string),
        replyWebhookUrl: `${publicUrl}/webhooks/${name}`,
        maxRetryCount: entry.max_retry_count,
      };
    };
    const bridge = new Bridge({
      store,
      client,
      logger,
      connectors: runtime,
      targetOf,
      signature: { payload: settings.platform.signature.payload, toleranceSeconds: settings.platform.signature.tolerance_seconds },
      webhookDedup: settings.platform.webhook_dedup,
      maxStoredBodyBytes: settings.store.max_stored_body_bytes,
      deliveryHealth: { failures: settings.health.delivery_failures, failingForMs: settings.health.delivery_failing_for },
      refusals: refusalLimits(settings.store.refused),
      observe: metrics.bridgeHooks(),
      feed,
      ...(lock ? { lock } : {}),
      jobs: {
        ...retryPolicy(settings.jobs, logger),
        concurrency: settings.jobs.concurrency,
        // Read at every claim: a reload that changes it applies at once.
        platformConcurrency: (name) => (reloadTarget?.settings ?? settings).connectors.find((e) => e.name === name)?.platform_concurrency,
        leaseMs: settings.jobs.lease_seconds * 1000,
        ...(overrides.jobPollMs ? { pollMs: overrides.jobPollMs } : {}),
      },
    });
    undo.push(() => bridge.pause.close(), () => bridge.runner.stop(0));
    const sealer = settings.store.encryption_key === undefined ? undefined : createSealer(settings.store.encryption_key);
    // Links are signed with a key every replica shares (store.encryption_key's, else one kept in the store).
    const files = new FileService({
      store,
      links: createFileLinks(await loadLinkKey(store, settings.store.encryption_key)),
      publicUrl: () => publicUrl,
      ttlMs: fileLifetimeMs(settings.files.link_ttl_days, settings.store.retention_days),
    });
    // Agents' attachments: from the platform's host (the sandbox's when embedded) and files.fetch_hosts only.
    const attachments = new HttpAttachmentFetcher({
      platformUrl: platform.url,
      authorization: () => platformHttp.authorization,
      fetchHosts: settings.files.fetch_hosts,
      maxBytes: settings.files.max_fetch_bytes,
    });
    undo.push(() => attachments.close());
    const contextDeps = { store, inbound: bridge.inbound, logger, files, attachments, feed, wakePoller: (name: string) => runtime.wakePoller(name), ...(sealer ? { sealer } : {}) };
    await runtime.createAll(entries, connectorsLoaded, (name, routes) => createConnectorContext(name, contextDeps, routes));

    const health = new GatewayHealth({
      store,
      connectors: () => runtime.health(),
      registered: async (name) => (await store.read.registrations.get(name)) !== undefined,
      platform: platformHealth,
      pause: bridge.pause,
      deliveries: bridge.deliveryHealth,
    });
    const proxyOn = settings.proxy.clients.length > 0 || settings.proxy.forward_caller_authorization;
    // The proxy reads the token at each call, so a reloaded one reaches it too.
    const upstream = { url: platform.url, organizationId: platform.organizationId, authorization: () => platformHttp.authorization };
    // Loaded only when on: a gateway without the proxy holds neither its modules nor every endpoint's schemas.
    const proxy = proxyOn ? (await import('./proxy-setup.ts')).proxyHandler(settings, upstream, logger, metrics, store) : undefined;
    app = buildApp({
      ...{ settings, store, logger, health, metrics, files, feed },
      intake: bridge.intake,
      connectorRoutes: runtime.routes,
      admin: bridge,
      ...(proxy ? { proxy } : {}),
    });
    if (!proxyOn) logger.info('proxy of the platform API is off: set proxy.clients (or proxy.forward_caller_authorization)');
    metrics.addScrapeGauges(store, health, () => bridge.runner.laneLoads());
    // Loaded only when alerts are set (their watch, senders and mail composer).
    const alerts = settings.alerts && (await import('../alerts/start-alerts.ts')).setUpAlerts({ settings: settings.alerts, store, queue: bridge.queue, runner: bridge.runner, health, logger, lease: pollers, origin: () => ({ publicUrl, replica }), told: metrics.alertTold });
    const host = overrides.host ?? settings.server.host;
    const address = await app.listen({ host, port: overrides.port ?? settings.server.port });
    const url = address.replace('[::1]', '127.0.0.1');
    publicUrl = (settings.server.public_url ?? url.replace('0.0.0.0', '127.0.0.1')).replace(/\/+$/, '');

    // The connectors start while their channels register: what a poller reads is stored and queued at once, and a
    // platform slow to answer at the start delays only the posts (the runner starts once the registrations are done).
    const connectorsStarted = runtime.startAll();
    // Register every connector; one the platform cannot take now keeps trying in the background.
    await Promise.all(
      runtime.names().map(async (name) => {
        try {
          await bridge.registrar.ensure(targetOf(name));
        } catch (err) {
          logger.warn({ err, connector: name }, 'channel registration failed; retrying in the background');
          void bridge.registrar.ensureInBackground(targetOf(name), registering.signal);
        }
      }),
    );
    bridge.runner.start();
    // Jobs queued by another replica or the CLI start here at once, not at the next poll (store/postgres/pg-wakeups.ts).
    store.wakeups?.subscribe((w) => {
      if ('all' in w) bridge.runner.notify();
      else if ('kind' in w) bridge.runner.notify(w.kind, w.lane);
    });
    platformHealth.start();
    alerts?.start(); // the watch, once the runner runs
    undo.push(() => alerts?.close());
    const stopRetention = startRetention(store, retentionOf(settings.store), logger.child({ room: 'retention' }), Date.now, lock);
    await connectorsStarted;

    logger.info(
      {
        event: 'gateway_ready',
        url,
        public_url: publicUrl,
        platform: platform.embedded ? 'embedded sandbox' : platform.url,
        // The embedded sandbox's own address and throwaway token, to call it as the platform (never a real platform's token).
        ...(sandbox ? { sandbox: { url: sandbox.url, organization_id: sandbox.organizationId, room_id: sandbox.roomId, sandbox_token: sandbox.token } } : {}),
        connectors: runtime.names(),
      },
      'threadgate is ready',
    );
    if (entries[0] === DEMO_CONNECTOR && sandbox) logDemoSteps(logger, url, sandbox);

    const started = { app, sandbox, http };
    const reloading: ReloadTarget = {
      file: loaded.file,
      settings,
      embedded: platform.embedded,
      http,
      pause: bridge.pause,
      connectors: reloadableConnectors(connectorsLoaded, runtime),
      runner: bridge.runner,
      deliveryHealth: bridge.deliveryHealth,
    };
    reloadTarget = reloading;
    let closing: Promise<void> | undefined;
    return {
      url,
      publicUrl,
      platform,
      store,
      app,
      sandbox,
      bridge,
      files,
      connectors: runtime,
      health,
      reload: (watched) => reloadSettings(reloading, logger, watched),
      reloadConnector: (entry) => reloadConnector(entry, { runtime, baseDir, contextFor: (name, routes) => createConnectorContext(name, contextDeps, routes) }),
      baseDir,
      close: () =>
        (closing ??= (async () => {
          registering.abort();
          platformHealth.close();
          bridge.pause.close();
          const retentionStopped = stopRetention(); // a round under way ends, its lock released, before the store closes
          runtime.signalStop(); // connector loops wind down
          await alerts?.close(); // the watch stops; alerts still waiting in memory are logged as not sent
          await started.app.close(); // stop accepting, finish in-flight requests
          await bridge.runner.stop(settings.server.shutdown_timeout_ms / 2); // finish or release jobs
          await runtime.stopAll(); // no deliver in flight any more; a late submit is stored and queued
          await attachments.close();
          await started.http.close();
          await started.sandbox?.close();
          await retentionStopped;
          await store.close();
        })()),
    };
  } catch (err) {
    registering.abort();
    for (const stop of undo.reverse()) await stop();
    await runtime.stopAll();
    await app?.close();
    await http?.close();
    await sandbox?.close();
    await store.close();
    throw err;
  }
}
