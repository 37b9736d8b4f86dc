/**
 * The lifecycle of the configured connectors: create each with its own
 * context (routes can be added from then on), start them once the gateway
 * listens, report their health. A connector's `poll` runs beside: on every
 * start directly, or — with `pollers` (several replicas on one database) —
 * only while this replica holds its lease (bridge/poller-lease.ts). On
 * shutdown the signals abort first and the polls are awaited; `stop()` comes
 * after the HTTP server and the job runner drained, so no `deliver` is in
 * flight when a connector releases its resources.
 *
 * `replace` (serve --watch) swaps one connector's instance for a new one,
 * made from a module loaded again: new jobs go to the new instance at once,
 * the old one's poll ends and its deliveries in flight finish before its
 * `stop`, and its state and queued jobs, in the store, stay.
 */
import type { Logger } from 'pino';
import { fencedState, runUnderLease, type PollerLeaseOptions } from '../bridge/poller-lease.ts';
import type { ConnectorContext, ConnectorDefinition, ConnectorHealth, ConnectorInstance, ConnectorRoutes } from './api.ts';
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
  /** The instance as the gateway calls it: its deliveries counted in `inflight`. */
  instance: ConnectorInstance;
  ctx: ConnectorContext;
  /** Aborts this instance's start signal and poll (the gateway's stop, or a replace). */
  own: AbortController;
  poll?: Promise<void>;
  inflight: number;
  /** Called when `inflight` drops to 0. */
  drained?: () => void;
  /** What the poll registered (`PollContext.onWake`), while it runs here. */
  wake?: (() => void) | undefined;
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
    // Another replica asked a poll that runs here for a turn (`wakePoller`); after a reconnect, every poll.
    options.pollers?.store.wakeups?.subscribe((w) => {
      if ('poller' in w) this.#running.get(w.poller)?.wake?.();
      else if ('all' in w) for (const running of this.#running.values()) running.wake?.();
    });
  }

  /**
   * Gives the connector `name`'s poll a turn (ConnectorContext.wakePoller): here when it runs here, else on the
   * replica that holds its lease (the store's `wakeups`; without them, at the poll's own next turn).
   */
  wakePoller(name: string): void {
    const wake = this.#running.get(name)?.wake;
    if (wake) return wake();
    this.#leases?.store.wakeups?.wakePoller(name).catch((err: unknown) => this.#logger.warn({ err, connector: name }, 'asking the replica that runs the poll for a turn failed'));
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
      try {
        this.#running.set(entry.name, await this.#create(entry, definition, loaded.configs.get(entry.name), contextFor));
      } catch (err) {
        throw new ConnectorStartError(`connector ${entry.name} could not be created: ${(err as Error).message}`, { cause: err });
      }
    }
  }

  async #create(entry: ConnectorEntryRef, definition: ConnectorDefinition, config: unknown, contextFor: ContextFactory): Promise<Running> {
    const ctx = contextFor(entry.name, this.routes.forConnector(entry.name));
    const created = await definition.create(config, ctx);
    const running: Running = { entry, instance: created, ctx, own: new AbortController(), inflight: 0 };
    const deliver = created.deliver.bind(created);
    const tracked = async (...args: Parameters<ConnectorInstance['deliver']>) => {
      running.inflight += 1;
      try {
        return await deliver(...args);
      } finally {
        running.inflight -= 1;
        if (running.inflight === 0) running.drained?.();
      }
    };
    // Methods bound to the instance itself: one made by a class keeps its private fields.
    running.instance = new Proxy(created, {
      get: (target, prop) => {
        if (prop === 'deliver') return tracked;
        const value: unknown = Reflect.get(target, prop, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    return running;
  }

  /**
   * Makes `name` anew from `definition` and `config`, then stops the instance it replaces: its poll ends, its
   * deliveries in flight finish (new ones already go to the new instance), then its `stop`. When the new one cannot
   * be created, the old one keeps running and its routes stay (the error is thrown).
   */
  async replace(name: string, definition: ConnectorDefinition, config: unknown, contextFor: ContextFactory): Promise<void> {
    const old = this.#running.get(name);
    if (old === undefined) throw new ConnectorStartError(`connector ${name} is not running`);
    const routes = this.routes.take(name);
    let next: Running;
    try {
      next = await this.#create(old.entry, definition, config, contextFor);
    } catch (err) {
      this.routes.restore(name, routes);
      throw err;
    }
    this.#running.set(name, next);
    old.own.abort(new Error('the connector is being replaced'));
    await old.poll;
    if (old.inflight > 0) await new Promise<void>((resolve) => (old.drained = resolve));
    try {
      await old.instance.stop();
    } catch (err) {
      this.#logger.warn({ err, connector: name }, 'the replaced connector failed to stop cleanly');
    }
    await this.#start(name, next);
  }

  /** Starts every connector; one that fails to start is logged and left stopped (no poll), the others run. */
  async startAll(): Promise<void> {
    await Promise.all([...this.#running].map(([name, running]) => this.#start(name, running)));
  }

  async #start(name: string, running: Running): Promise<void> {
    const signal = AbortSignal.any([this.#stop.signal, running.own.signal]);
    try {
      await running.instance.start(signal);
      this.#logger.info({ connector: name }, 'connector started');
    } catch (err) {
      this.#logger.error({ err, connector: name }, 'connector failed to start');
      return;
    }
    if (running.instance.poll) {
      running.poll = this.#poll(name, running, signal);
      this.#polls.push(running.poll);
    }
  }

  #poll(name: string, running: Running, stopSignal: AbortSignal): Promise<void> {
    const { instance, ctx } = running;
    const run = instance.poll!.bind(instance);
    const onWake = (listener: () => void) => void (running.wake = listener);
    const poll = (pollCtx: { signal: AbortSignal; state: typeof ctx.state }) => run({ ...pollCtx, onWake }).finally(() => (running.wake = undefined));
    const logger = this.#logger.child({ connector: name });
    const guarded = (run: () => Promise<void>) => run().catch((err: unknown) => logger.error({ err }, 'the connector\'s poll failed'));
    const leases = this.#leases;
    if (!leases) return guarded(() => poll({ signal: stopSignal, state: ctx.state }));
    const options = { ...leases, name: `poller:${name}`, logger, onStandby: () => void this.#waiting.set(name, 'standby') };
    this.#waiting.set(name, 'seeking');
    return guarded(() =>
      runUnderLease(options, stopSignal, (hold, signal) => {
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
