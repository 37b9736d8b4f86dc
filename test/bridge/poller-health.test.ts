/**
 * What /readyz says of a polling connector under leases (src/connector/runtime.ts): `seeking its lease` until this
 * replica's first ask for the lease is answered (not the idle poller's details, which would say a mailbox is not
 * connected), the connector's own health while its poll runs here, and `standby` once another replica holds it.
 */
import { describe, expect, it } from 'vitest';
import { gatedStore } from '../support/gated-store.ts';
import { startPollingRuntime } from '../support/polling-runtime.ts';
import { openTestStore } from '../support/store-backends.ts';
import { until } from '../support/wait.ts';

const TTL_MS = 600;
const SEEKING = 'seeking its lease: not yet known whether this replica or another runs it';
const STANDBY = 'standby: another replica holds its lease';

describe('a polling connector’s health under leases', () => {
  it('seeking until the first ask is answered, then its own health while it polls, then standby when its hold is taken over', async () => {
    const { store } = await openTestStore('sqlite');
    const gated = gatedStore(store); // the runtime's first ask for the lease stays unanswered until `open()`
    const { runtime, polls, details } = await startPollingRuntime(gated.store, 'replica-a', TTL_MS);
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
    const { runtime, polls, details } = await startPollingRuntime(store, 'replica-a', TTL_MS);
    try {
      await until(async () => (await details())?.poller === STANDBY, 5_000, 'this replica to stand by');
      expect(polls()).toBe(0);
    } finally {
      await runtime.stopAll();
    }
  });
});
