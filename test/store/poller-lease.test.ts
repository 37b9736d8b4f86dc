/**
 * Poller leases on both store backends: one holder at a time, a takeover
 * with a new generation when the holder stops or its hold expires, and the
 * stale holder's fenced writes refused (bridge/poller-lease.ts).
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { fencedState, runUnderLease, type Hold } from '../../src/bridge/poller-lease.ts';
import type { ConnectorState } from '../../src/connector/api.ts';
import type { Store } from '../../src/store/store.ts';
import { gatedStore } from '../support/gated-store.ts';
import { openTestStore, STORE_BACKENDS } from '../support/store-backends.ts';
import { until } from '../support/wait.ts';

const logger = pino({ level: 'silent' });
const TTL_MS = 300;

/** A contender for `poller:mail`: its holds, its current signal, and how to stop it. */
function contender(store: Store, holder: string) {
  const stop = new AbortController();
  const holds: Hold[] = [];
  let current: { hold: Hold; signal: AbortSignal } | undefined;
  const state: ConnectorState = {
    get: async (key) => (await store.read.state.get('mail', key)) as never,
    set: (key, value) => store.write((tx) => tx.state.set('mail', key, value, Date.now())),
    delete: (key) => store.write((tx) => tx.state.delete('mail', key)),
    keys: (prefix, limit = 100) => store.read.state.keys('mail', prefix, limit),
  };
  const running = runUnderLease({ store, name: 'poller:mail', holder, ttlMs: TTL_MS, logger, retryMs: 50 }, stop.signal, async (hold, signal) => {
    holds.push(hold);
    current = { hold, signal };
    await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    current = undefined;
  });
  return {
    holds,
    holding: () => current !== undefined,
    fenced: () => fencedState(store, 'mail', current!.hold, state),
    signalOf: () => current?.signal,
    stop: async () => {
      stop.abort();
      await running;
    },
  };
}

describe.each(STORE_BACKENDS)('poller leases on the %s store', (backend) => {
  it('one of two replicas holds the poller; when it stops, the other takes over with the next generation', async () => {
    const { store } = await openTestStore(backend);
    const a = contender(store, 'replica-a');
    await until(async () => a.holding(), 5_000, 'a to hold');
    const b = contender(store, 'replica-b');
    await new Promise((r) => setTimeout(r, TTL_MS * 2)); // several renewals and retries later
    expect([a.holding(), b.holding()]).toEqual([true, false]);
    await a.stop();
    await until(async () => b.holding(), 5_000, 'b to take over');
    expect(b.holds.map((h) => h.generation)).toEqual([a.holds[0]!.generation + 1]);
    expect(await store.read.leases.get('poller:mail')).toMatchObject({ holder: 'replica-b', generation: 2 });
    await b.stop();
  });

  it('a holder whose hold expired and was taken over cannot write its cursor, and its poller is stopped', async () => {
    const { store } = await openTestStore(backend);
    const a = contender(store, 'replica-a');
    await until(async () => a.holding(), 5_000, 'a to hold');
    const staleState = a.fenced();
    const staleSignal = a.signalOf()!;
    await staleState.set('cursor', { lastUid: 10 });
    // a stalls (its renewals stop reaching the store): its hold expires and b takes the lease.
    const now = Date.now();
    await store.write((tx) => tx.sql.run(`update leases set expires_at = ? where name = 'poller:mail'`, [now - 1]));
    const generation = await store.write((tx) => tx.leases.acquire('poller:mail', 'replica-b', now + 60_000, now));
    expect(generation).toBe(2);
    await expect(staleState.set('cursor', { lastUid: 3 })).rejects.toMatchObject({ code: 'TG_POLLER_LEASE_LOST' });
    expect(await store.read.state.get('mail', 'cursor')).toEqual({ lastUid: 10 });
    await until(async () => staleSignal.aborted, 5_000, 'the stale poller to be stopped');
    expect((staleSignal.reason as { code?: string }).code).toBe('TG_POLLER_LEASE_LOST');
    await a.stop();
    // b's hold was not released by a's stop.
    expect(await store.read.leases.get('poller:mail')).toMatchObject({ holder: 'replica-b', generation: 2 });
  });

  it('a stop while the lease is being taken ends the run: the task does not start, and the lease is released', async () => {
    const { store } = await openTestStore(backend);
    // The first ask for the lease waits at the gate until the replica was told to stop.
    const { store: slowStore, open } = gatedStore(store);
    const stop = new AbortController();
    let started = 0;
    const running = runUnderLease({ store: slowStore, name: 'poller:mail', holder: 'replica-a', ttlMs: TTL_MS, logger, retryMs: 50 }, stop.signal, async (_hold, signal) => {
      started += 1;
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    });
    await new Promise((r) => setTimeout(r, 20));
    stop.abort();
    open();
    const ended = await Promise.race([running.then(() => 'ended'), new Promise((r) => setTimeout(() => r('still running'), 2_000))]);
    expect(ended).toBe('ended');
    expect(started).toBe(0);
    expect(await store.read.leases.get('poller:mail')).toMatchObject({ holder: 'replica-a', expiresAt: 0 });
  });
});
