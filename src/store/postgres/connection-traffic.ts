/**
 * What the PostgreSQL store's pooled connections send, watched from their
 * `query` (the pool's 'connect' event: once per connection).
 *
 * One socket write a tick: node-postgres corks its socket around each
 * statement's messages (Parse, Bind, Execute, Sync) and uncorks it after
 * them, so in pipeline mode (pg-store.ts) a batch's twenty statements were
 * twenty `writev` calls — 4.5 a webhook, more than a quarter of a gateway's
 * CPU under load (docs/benchmarks.md, "Receiver on PostgreSQL replicas").
 * Held corked from the first statement of a tick until the next tick, they
 * leave together. A tick scheduled from a promise's continuation runs after
 * every continuation queued with it, so the next statements of a batch's
 * writes, each issued by its own write, share one write too.
 *
 * Round trips, counted: a statement sent on a connection while no earlier
 * one on it awaits its answer starts one; statements sent while one is in
 * flight ride along. BEGIN, COMMIT and reads count as the rest. What a write
 * costs in waits on the server, whatever the number of its statements: the
 * figure behind "one round trip per group"
 * (docs/decisions/postgres-group-commit.md), read by tests, `/metrics` and
 * the benchmarks.
 */
import type { Writable } from 'node:stream';
import type pg from 'pg';

type Query = (...args: unknown[]) => unknown;

export class ConnectionTraffic {
  #roundTrips = 0;

  /** Round trips so far, on every connection watched. */
  get roundTrips(): number {
    return this.#roundTrips;
  }

  /** Counts `client`'s round trips and sends its statements of one tick in one write, from now on. */
  watch(client: pg.PoolClient): void {
    const query = client.query.bind(client) as Query;
    const stream = (client as unknown as { connection?: { stream?: Writable } }).connection?.stream;
    const corks = typeof stream?.cork === 'function' ? stream : undefined;
    let corked = false;
    const uncork = () => {
      corked = false;
      corks?.uncork();
    };
    // One hop more: ticks queued after the first statement's (a merger's flush, statement-merger.ts) run first, and
    // what they send leaves with it. A group's BEGIN went out alone before its first merged statement.
    const uncorkLater = () => process.nextTick(uncork);
    let inFlight = 0;
    const answered = () => {
      inFlight -= 1;
    };
    (client as unknown as { query: Query }).query = (...args: unknown[]) => {
      if (corks && !corked) {
        corked = true;
        corks.cork();
        process.nextTick(uncorkLater);
      }
      if (inFlight === 0) this.#roundTrips += 1;
      const result = query(...args);
      // Only promise-returning calls (the store's) are followed; a callback or a submittable counts as its own trip.
      if (result instanceof Promise) {
        inFlight += 1;
        // Attached before the caller's own await: the count is down before the caller sends its next statement.
        result.then(answered, answered);
      }
      return result;
    };
  }
}
