/**
 * A lock across replicas, on the store's lease rows (leases-repo.ts): `fn`
 * runs while this replica holds `name`; another replica asking for the same
 * name waits until it is released (or, should the holder die, until its
 * `ttlMs` ran out). For short critical sections that call out to the platform
 * — creating a connector's channel configuration — where two replicas acting
 * at once would each create one.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Store } from '../store/store.ts';

/** Runs `fn` holding `name`; waiting for it ends with an AbortError once `signal` aborts. */
export type StoreLock = <T>(name: string, fn: () => Promise<T>, signal?: AbortSignal) => Promise<T>;

export function storeLock(store: Store, holder: string, ttlMs: number, retryMs = 100): StoreLock {
  return async <T>(name: string, fn: () => Promise<T>, signal?: AbortSignal): Promise<T> => {
    for (;;) {
      signal?.throwIfAborted();
      const now = Date.now();
      const generation = await store.write((tx) => tx.leases.acquire(name, holder, now + ttlMs, now));
      if (generation !== undefined) {
        try {
          return await fn();
        } finally {
          await store.write((tx) => tx.leases.release(name, holder, generation)).catch(() => {});
        }
      }
      await sleep(retryMs, undefined, signal ? { signal } : {});
    }
  };
}
