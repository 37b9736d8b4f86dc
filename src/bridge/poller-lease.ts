/**
 * One replica at a time runs a connector's poller (a mailbox, a ticket
 * queue): the poller runs only while this replica holds the lease row
 * `poller:<connector>` (leases-repo.ts). The hold is renewed every third of
 * its time to live; when renewing says it was lost, or fails until the hold
 * would have run out, the poller's signal aborts and the replica goes back to
 * waiting for the lease. A replica that stops releases the lease, so another
 * takes over at once (on PostgreSQL told by a notification, the store's
 * `wakeups`; else at its next ask); one that dies is taken over when its hold
 * expires.
 *
 * The poller's writes of its own progress (its cursor) go through a state
 * view fenced by the hold's generation: each write checks, in its own
 * transaction, that this replica still holds the lease at that generation,
 * and is refused with PollerLeaseLostError otherwise — a stale holder that
 * wakes up cannot move the cursor of the one that took over.
 */
import type { Logger } from 'pino';
import type { ConnectorState } from '../connector/api.ts';
import { ThreadgateError } from '../base/errors.ts';
import { sleep } from '../base/sleep.ts';
import type { Store } from '../store/store.ts';

export class PollerLeaseLostError extends ThreadgateError {
  readonly code = 'TG_POLLER_LEASE_LOST';
}

export interface Hold {
  name: string;
  holder: string;
  generation: number;
}

export interface PollerLeaseOptions {
  store: Store;
  /** The lease row's name, `poller:<connector>`. */
  name: string;
  /** This replica's id (unique per process). */
  holder: string;
  ttlMs: number;
  logger: Logger;
  /** How often a replica without the lease asks again (default: a third of ttlMs, at most 5 s). */
  retryMs?: number;
  /** Told each time the lease was found held by another replica. */
  onStandby?: (holder: string | undefined) => void;
}

/** Runs `task` whenever this replica holds the lease, until `signal` aborts. */
export async function runUnderLease(options: PollerLeaseOptions, signal: AbortSignal, task: (hold: Hold, signal: AbortSignal) => Promise<void>): Promise<void> {
  // A replica giving the lease back (it stops) says so (store/postgres/pg-wakeups.ts): a wait for it ends at once.
  let givenBack = new AbortController();
  const unsubscribe = options.store.wakeups?.subscribe((w) => {
    if ('all' in w || ('lease' in w && w.lease === options.name)) givenBack.abort();
  });
  try {
    await contend(options, signal, task, {
      ask: () => {
        if (givenBack.signal.aborted) givenBack = new AbortController();
      },
      wait: () => AbortSignal.any([signal, givenBack.signal]),
    });
  } finally {
    unsubscribe?.();
  }
}

/**
 * runUnderLease's loop. `given.ask()` before each try for the lease; a wait for it ends on `given.wait()` (the stop,
 * or the lease given back since that try).
 */
async function contend(
  options: PollerLeaseOptions,
  signal: AbortSignal,
  task: (hold: Hold, signal: AbortSignal) => Promise<void>,
  given: { ask(): void; wait(): AbortSignal },
): Promise<void> {
  const { store, name, holder, ttlMs, logger } = options;
  const retryMs = options.retryMs ?? Math.min(5_000, Math.max(50, Math.floor(ttlMs / 3)));
  let waitingLogged = false;
  while (!signal.aborted) {
    given.ask();
    let generation: number | undefined;
    try {
      const now = Date.now();
      generation = await store.write((tx) => tx.leases.acquire(name, holder, now + ttlMs, now));
    } catch (err) {
      logger.warn({ err: { message: (err as Error).message }, lease: name }, 'taking the poller lease failed; trying again');
    }
    if (generation === undefined) {
      const other = (await store.read.leases.get(name).catch(() => undefined))?.holder;
      options.onStandby?.(other);
      if (!waitingLogged) logger.info({ lease: name, holder: other }, 'another replica runs this poller; waiting for its lease');
      waitingLogged = true;
      await sleep(retryMs, given.wait());
      continue;
    }
    waitingLogged = false;
    const hold: Hold = { name, holder, generation };
    if (signal.aborted) {
      // Stopped while the lease was being taken: its abort has fired, no listener would hear it; the task does not start.
      await store.write((tx) => tx.leases.release(name, holder, generation)).catch(() => {});
      break;
    }
    logger.info({ lease: name, generation }, 'poller lease taken: this replica runs the poller');
    await holdWhile(options, hold, signal, task);
    if (!signal.aborted) await sleep(retryMs, signal);
  }
}

async function holdWhile(options: PollerLeaseOptions, hold: Hold, signal: AbortSignal, task: (hold: Hold, signal: AbortSignal) => Promise<void>): Promise<void> {
  const { store, ttlMs, logger } = options;
  const held = new AbortController();
  const onStop = () => held.abort(signal.reason);
  signal.addEventListener('abort', onStop, { once: true });
  let validUntil = Date.now() + ttlMs;
  let lost = false;
  const renew = async () => {
    const until = Date.now() + ttlMs;
    try {
      if (await store.write((tx) => tx.leases.renew(hold.name, hold.holder, hold.generation, until))) validUntil = until;
      else lost = true;
    } catch (err) {
      logger.warn({ err: { message: (err as Error).message }, lease: hold.name }, 'renewing the poller lease failed');
      // Not known to hold it any longer once the hold would have run out.
      if (Date.now() >= validUntil) lost = true;
    }
    if (lost && !held.signal.aborted) {
      logger.warn({ lease: hold.name, generation: hold.generation }, 'poller lease lost: stopping the poller here');
      held.abort(new PollerLeaseLostError(`the lease ${hold.name} moved on`));
    }
  };
  const timer = setInterval(() => void renew(), Math.max(20, Math.floor(ttlMs / 3)));
  try {
    await task(hold, held.signal);
  } catch (err) {
    logger.error({ err, lease: hold.name }, 'the poller failed');
  } finally {
    clearInterval(timer);
    signal.removeEventListener('abort', onStop);
    if (!lost) await store.write((tx) => tx.leases.release(hold.name, hold.holder, hold.generation)).catch(() => {});
  }
}

/** The connector's state with every write checked against `hold` in the transaction that stores it. */
export function fencedState(store: Store, connector: string, hold: Hold, state: ConnectorState): ConnectorState {
  const checked = async (tx: Parameters<Parameters<Store['write']>[0]>[0]) => {
    if (!(await tx.leases.holds(hold.name, hold.holder, hold.generation))) {
      throw new PollerLeaseLostError(`this replica no longer holds ${hold.name} (generation ${hold.generation}): the write is refused`);
    }
  };
  return Object.freeze({
    get: state.get,
    keys: state.keys,
    set: (key: string, value: unknown) =>
      store.write(async (tx) => {
        await checked(tx);
        await tx.state.set(connector, key, value, Date.now());
      }),
    delete: (key: string) =>
      store.write(async (tx) => {
        await checked(tx);
        await tx.state.delete(connector, key);
      }),
  });
}
