/**
 * A connector runtime under poller leases (src/connector/runtime.ts) with one polling connector `mail`, whose poll
 * runs until its signal aborts: it counts the polls started and the turns it was given (`PollContext.onWake`), and
 * its health says whether it is polling.
 */
import pino from 'pino';
import { z } from 'zod';
import type { ConnectorContext, ConnectorDefinition, PollContext } from '../../src/connector/api.ts';
import { defineConnector } from '../../src/connector/api.ts';
import { ConnectorRuntime } from '../../src/connector/runtime.ts';
import type { Store } from '../../src/store/store.ts';

export interface PollingRuntime {
  runtime: ConnectorRuntime;
  /** Polls started here. */
  polls(): number;
  /** Whether the poll runs here now. */
  polling(): boolean;
  /** Turns the poll was given (its onWake listener called). */
  turns(): number;
  /** The connector's health details, as /readyz shows them. */
  details(): Promise<Record<string, unknown> | undefined>;
}

export async function startPollingRuntime(store: Store, holder: string, ttlMs: number): Promise<PollingRuntime> {
  let polls = 0;
  let polling = false;
  let turns = 0;
  const definition = defineConnector({
    type: 'polling',
    configSchema: z.strictObject({}),
    create() {
      return {
        start() {},
        stop() {},
        async deliver() {
          return {};
        },
        async poll({ signal, onWake }: PollContext) {
          polls += 1;
          onWake?.(() => void (turns += 1));
          polling = true;
          await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
          polling = false;
        },
        health: () => ({ ok: true, details: { connected: polling } }),
      };
    },
  }) as unknown as ConnectorDefinition;
  const runtime = new ConnectorRuntime(pino({ level: 'silent' }), { pollers: { store, holder, ttlMs } });
  const state = {
    get: async (key: string) => store.read.state.get('mail', key),
    set: (key: string, value: unknown) => store.write((tx) => tx.state.set('mail', key, value, Date.now())),
    delete: (key: string) => store.write((tx) => tx.state.delete('mail', key)),
    keys: (prefix: string, limit = 100) => store.read.state.keys('mail', prefix, limit),
  };
  await runtime.createAll([{ name: 'mail', type: 'polling' }], { definitions: new Map([['polling', definition]]), configs: new Map([['mail', {}]]), problems: [] }, () => ({ state }) as unknown as ConnectorContext);
  await runtime.startAll();
  return {
    runtime,
    polls: () => polls,
    polling: () => polling,
    turns: () => turns,
    details: async () => (await runtime.health()).mail?.details,
  };
}
