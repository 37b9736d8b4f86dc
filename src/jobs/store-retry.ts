/**
 * Recording a job's outcome through a database outage. A job that did its
 * work (a reply delivered, a message posted) and then cannot record it — the
 * PostgreSQL server restarting, a failover — would otherwise be left to its
 * lease and run again once the database is back: a repeated message for
 * every job in flight at the time. Instead the write is tried again, from
 * 100 ms up to every second, for as long as the store says it is unavailable,
 * until it commits, the lease proves lost (another run has the job: fenced,
 * nothing recorded), or the runner stops and aborts the run. Any other error
 * is the write's own and is not tried again here. A handler that failed
 * because the store was away (`storeWasUnavailable`) did not fail its job:
 * the runner gives the job back due at once, without using a try, so it
 * keeps its place before the later jobs of its thread.
 */
import type { Logger } from 'pino';
import { StoreUnavailableError } from '../store/errors.ts';

const FIRST_WAIT_MS = 100;
const MAX_WAIT_MS = 1_000;

export async function whileStoreUnavailable<T>(write: () => Promise<T>, options: { signal: AbortSignal; logger: Logger; what: string }): Promise<T> {
  let wait = FIRST_WAIT_MS;
  let failures = 0;
  for (;;) {
    try {
      const value = await write();
      if (failures > 0) options.logger.info({ tries: failures + 1 }, `${options.what}: recorded once the store was back`);
      return value;
    } catch (err) {
      if (!(err instanceof StoreUnavailableError) || options.signal.aborted) throw err;
      if (failures++ === 0) options.logger.warn({ err: { code: err.code, message: err.message } }, `${options.what}: the store is unavailable; trying again`);
      await new Promise((resolve) => setTimeout(resolve, wait));
      wait = Math.min(MAX_WAIT_MS, wait * 2);
    }
  }
}

/** Whether `err`, or an error it was caused by, says the store was unavailable. */
export function storeWasUnavailable(err: unknown): boolean {
  let e: unknown = err;
  for (let depth = 0; e instanceof Error && depth < 5; depth++, e = e.cause) if (e instanceof StoreUnavailableError) return true;
  return false;
}
