/**
 * The lifecycle of the configured connectors: create each with its own
 * context (routes can be added from then on), start them once the gateway
 * listens, report their health. On shutdown their `start` signal aborts
 * first; `stop()` comes after the HTTP server and the job runner drained, so
 * no `deliver` is in flight when a connector releases its resources.
 */
import type { Logger } from 'pino';
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
}

export class ConnectorRuntime {
  readonly routes = new ConnectorRouteTable();
  readonly #running = new Map<string, Running>();
  readonly #logger: Logger;
  readonly #stop = new AbortController();

  constructor(logger: Logger) {
    this.#logger = logger;
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
        this.#running.set(entry.name, { entry, instance });
      } catch (err) {
        throw new ConnectorStartError(`connector ${entry.name} could not be created: ${(err as Error).message}`, { cause: err });
      }
    }
  }

  /** Starts every connector; one that fails to start is logged and left stopped, the others run. */
  async startAll(): Promise<void> {
    await Promise.all(
      [...this.#running].map(async ([name, { instance }]) => {
        try {
          await instance.start(this.#stop.signal);
          this.#logger.info({ connector: name }, 'connector started');
        } catch (err) {
          this.#logger.error({ err, connector: name }, 'connector failed to start');
        }
      }),
    );
  }

  /** Aborts the `start` signal: loops wind down, nothing is torn down yet. */
  signalStop(): void {
    if (!this.#stop.signal.aborted) this.#stop.abort(new Error('the gateway is stopping'));
  }

  /** Calls every `stop()`, once the gateway's deliveries have finished. */
  async stopAll(): Promise<void> {
    this.signalStop();
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
      try {
        out[name] = instance.health ? await instance.health() : { ok: true };
      } catch (err) {
        out[name] = { ok: false, details: { error: (err as Error).message } };
      }
    }
    return out;
  }
}
