/**
 * What /readyz says of a polling connector under leases (src/connector/runtime.ts): `seeking its lease` until this
 * replica's first ask for the lease is answered (not the idle poller's details, which would say a mailbox is not
 * connected), the connector's own health while its poll runs here, and `standby` once another replica holds it.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ConnectorContext, ConnectorDefinition } from '../../src/connector/api.ts';
import { defineConnector } from '../../src/connector/api.ts';
import { ConnectorRuntime } from '../../src/connector/runtime.ts';
import type { Store } from '../../src/store/store.ts';
import { gatedStore } from '../support/gated-store.ts';
import { openTestStore } from '../support/store-backends.ts';
import { until } from '../support/wait.ts';

const TTL_MS = 600;
const SEEKING = 'seeking its lease: not yet known whether this replica or another runs it';
const STANDBY = 'standby: another replica holds its lease';

/** A connector whose poll runs until its signal aborts, and whose health says whether it is polling. */
function pollingConnector(): { definition: ConnectorDefinition; polls: () => number } {
  let polls = 0;
  let polling = false;
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
        async poll({ signal }: { signal: AbortSignal }) {
          polls += 1;
          polling = true;
          await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
          polling = false;
        },
        health: () => ({ ok: true, details: { connected: polling } }),
      };
    },
  }) as unknown as ConnectorDefinition;
  return { definition, polls: () => polls };
}

async function startRuntime(store: Store, holder: string) {
  const { definition, polls } = pollingConnector();
  const runtime = new ConnectorRuntime(pino({ level: 'silent' }), { pollers: { store, holder, ttlMs: TTL_MS } });
  const state = {
    get: async (key: string) => store.read.state.get('mail', key),
    set: (key: string, value: unknown) => store.write((tx) => tx.state.set('mail', key, value, Date.now())),
    delete: (key: string) => store.write((tx) => tx.state.delete('mail', key)),
    keys: (prefix: string, limit = 100) => store.read.state.keys('mail', prefix, limit),
  };
  await runtime.createAll([{ name: 'mail', type: 'polling' }], { definitions: new Map([['polling', definition]]), configs: new Map([['mail', {}]]), problems: [] }, () => ({ state }) as unknown as ConnectorContext);
  await runtime.startAll();
  const details = async () => (await runtime.health()).mail?.details;
  return { runtime, polls, details };
}

describe('a polling connector’s health under leases', () => {
  it('seeking until the first ask is answered, then its own health while it polls, then standby when its hold is taken over', async () => {
    const { store } = await openTestStore('sqlite');
    const gated = gatedStore(store); // the runtime's first ask for the lease stays unanswered until `open()`
    const { runtime, polls, details } = await startRuntime(gated.store, 'replica-a');
    try {
      await new Promise((r) => setTimeout(r, 50));
      expect(await details()).toEqual({ poller: SEEKING });
      expect(polls()).toBe(0);
      gated.open();
      await until(async () => (await details())?.connected === true, 5_000, 'the poll to run here');
      expect(polls()).toBe(1);

      // Another replica takes the lease over (this hold expired): the poll here is stopped, and once this replica
      // asks again its health says it stands by.
      const now = Date.now();
      await store.write((tx) => tx.sql.run(`update leases set expires_at = ? where name = 'poller:mail'`, [now - 1]));
      await store.write((tx) => tx.leases.acquire('poller:mail', 'replica-b', now + 60_000, now));
      await until(async () => (await details())?.poller === STANDBY, 5_000, 'this replica to stand by');
      expect(polls()).toBe(1);
    } finally {
      gated.open(); // a failed check above leaves no ask waiting at the gate for the stop
      await runtime.stopAll();
    }
  });

  it('standby from its first answer when another replica holds the lease', async () => {
    const { store } = await openTestStore('sqlite');
    const now = Date.now();
    await store.write((tx) => tx.leases.acquire('poller:mail', 'replica-b', now + 60_000, now));
    const { runtime, polls, details } = await startRuntime(store, 'replica-a');
    try {
      await until(async () => (await details())?.poller === STANDBY, 5_000, 'this replica to stand by');
      expect(polls()).toBe(0);
    } finally {
      await runtime.stopAll();
    }
  });
});
