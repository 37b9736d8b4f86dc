/**
 * The lifecycle of the configured connectors: create each with its own
 * context (routes can be added from then on), start them once the gateway
 * listens, report their health. A connector's `poll` runs beside: on every
 * start directly, or — with `pollers` (several replicas on one database) —
 * only while this replica holds its lease (bridge/poller-lease.ts). On
 * shutdown the signals abort first and the polls are awaited; `stop()` comes
 * after the HTTP server and the job runner drained, so no `deliver` is in
 * flight when a connector releases its resources.
 */
import type { Logger } from 'pino';
import { fencedState, runUnderLease, type PollerLeaseOptions } from '../bridge/poller-lease.ts';
import type { ConnectorContext, ConnectorHealth, ConnectorInstance, ConnectorRoutes } from './api.ts';
import { ConnectorStartError } from './errors.ts';
import type { LoadedConnectors } from './registry.ts';
import { ConnectorRouteTable } from './route-table.ts';

/** What the runtime needs of a settings entry. */
export interface ConnectorEntryRef {
  name: string;
  type: string;
}

/** Makes the context of one connector (the bridge provides it). */
export type ContextFactory = (name: string, routes: ConnectorRoutes) => ConnectorContext;

interface Running {
  entry: ConnectorEntryRef;
  instance: ConnectorInstance;
  ctx: ConnectorContext;
}

/** What /readyz says of a connector whose poller does not run in this replica. */
const WAITING = {
  seeking: 'seeking its lease: not yet known whether this replica or another runs it',
  standby: 'standby: another replica holds its lease',
} as const;

/** Polls under leases: the store, this replica's id and the hold's time to live. */
export type PollerLeases = Omit<PollerLeaseOptions, 'name' | 'logger' | 'retryMs'>;

export class ConnectorRuntime {
  readonly routes = new ConnectorRouteTable();
  readonly #running = new Map<string, Running>();
  readonly #logger: Logger;
  readonly #stop = new AbortController();
  readonly #leases: PollerLeases | undefined;
  readonly #polls: Promise<void>[] = [];
  /**
   * With leases, each connector whose poller does not run here: `seeking` until this replica's first ask for the lease
   * is answered, `standby` while another replica was last found holding it. A poller that runs here, or ran here last
   * (its poll failed, or its hold was lost, and it asks again), has no entry: its own health is reported, with its
   * last error.
   */
  readonly #waiting = new Map<string, 'seeking' | 'standby'>();

  constructor(logger: Logger, options: { pollers?: PollerLeases } = {}) {
    this.#logger = logger;
    this.#leases = options.pollers;
  }

  names(): string[] {
    return [...this.#running.keys()];
  }

  has(name: string): boolean {
    return this.#running.has(name);
  }

  instanceOf(name: string): ConnectorInstance | undefined {
    return this.#running.get(name)?.instance;
  }

  async createAll(entries: readonly ConnectorEntryRef[], loaded: LoadedConnectors, contextFor: ContextFactory): Promise<void> {
    for (const entry of entries) {
      const definition = loaded.definitions.get(entry.type);
      if (!definition) throw new ConnectorStartError(`connector ${entry.name}: no definition for type ${entry.type}`);
      const ctx = contextFor(entry.name, this.routes.forConnector(entry.name));
      try {
        const instance = await definition.create(loaded.configs.get(entry.name), ctx);
        this.#running.set(entry.name, { entry, instance, ctx });
      } catch (err) {
        throw new ConnectorStartError(`connector ${entry.name} could not be created: ${(err as Error).message}`, { cause: err });
      }
    }
  }

  /** Starts every connector; one that fails to start is logged and left stopped (no poll), the others run. */
  async startAll(): Promise<void> {
    await Promise.all(
      [...this.#running].map(async ([name, running]) => {
        try {
          await running.instance.start(this.#stop.signal);
          this.#logger.info({ connector: name }, 'connector started');
        } catch (err) {
          this.#logger.error({ err, connector: name }, 'connector failed to start');
          return;
        }
        if (running.instance.poll) this.#polls.push(this.#poll(name, running));
      }),
    );
  }

  #poll(name: string, { instance, ctx }: Running): Promise<void> {
    const poll = instance.poll!.bind(instance);
    const logger = this.#logger.child({ connector: name });
    const guarded = (run: () => Promise<void>) => run().catch((err: unknown) => logger.error({ err }, 'the connector\'s poll failed'));
    const leases = this.#leases;
    if (!leases) return guarded(() => poll({ signal: this.#stop.signal, state: ctx.state }));
    const options = { ...leases, name: `poller:${name}`, logger, onStandby: () => void this.#waiting.set(name, 'standby') };
    this.#waiting.set(name, 'seeking');
    return guarded(() =>
      runUnderLease(options, this.#stop.signal, (hold, signal) => {
        this.#waiting.delete(name);
        return poll({ signal, state: fencedState(leases.store, name, hold, ctx.state) });
      }),
    );
  }

  /** Hands a reloaded, checked config to the connector (`reconfigure`): the keys it applied; none when it cannot or fails. */
  reconfigure(name: string, config: unknown): string[] {
    const instance = this.#running.get(name)?.instance;
    if (instance?.reconfigure === undefined) return [];
    try {
      return instance.reconfigure(config);
    } catch (err) {
      this.#logger.error({ err, connector: name }, 'the connector could not take the reloaded settings; they need a restart');
      return [];
    }
  }

  /** Aborts the `start` signal: loops wind down, nothing is torn down yet. */
  signalStop(): void {
    if (!this.#stop.signal.aborted) this.#stop.abort(new Error('the gateway is stopping'));
  }

  /** Awaits the polls, then calls every `stop()`, once the gateway's deliveries have finished. */
  async stopAll(): Promise<void> {
    this.signalStop();
    await Promise.all(this.#polls);
    await Promise.all(
      [...this.#running].map(async ([name, { instance }]) => {
        try {
          await instance.stop();
        } catch (err) {
          this.#logger.warn({ err, connector: name }, 'connector failed to stop cleanly');
        }
      }),
    );
  }

  async health(): Promise<Record<string, ConnectorHealth>> {
    const out: Record<string, ConnectorHealth> = {};
    for (const [name, { instance }] of this.#running) {
      // The poller does not run here (another replica runs it, or none is known to yet): nothing of it to be unhealthy about.
      const waiting = this.#waiting.get(name);
      if (waiting !== undefined) {
        out[name] = { ok: true, details: { poller: WAITING[waiting] } };
        continue;
      }
      try {
        out[name] = instance.health ? await instance.health() : { ok: true };
      } catch (err) {
        out[name] = { ok: false, details: { error: (err as Error).message } };
      }
    }
    return out;
  }
}
