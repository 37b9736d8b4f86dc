/**
 * Counts the PostgreSQL store's round trips: a statement sent on a connection
 * while no earlier one on it awaits its answer starts one; statements sent
 * while one is in flight (pipeline mode, pg-store.ts) ride along and add
 * none. BEGIN, COMMIT and reads count as the rest. What a write costs in
 * waits on the server, whatever the number of its statements: the figure
 * behind "one round trip per group" (docs/decisions/postgres-group-commit.md),
 * read by tests, `/metrics` and the benchmarks.
 */
import type pg from 'pg';

type Query = (...args: unknown[]) => unknown;

export class RoundTrips {
  #count = 0;

  /** Round trips so far, on every connection watched. */
  get count(): number {
    return this.#count;
  }

  /** Counts the round trips of `client` from now on (the pool's 'connect' event: once per connection). */
  watch(client: pg.PoolClient): void {
    const query = client.query.bind(client) as Query;
    let inFlight = 0;
    const answered = () => {
      inFlight -= 1;
    };
    (client as unknown as { query: Query }).query = (...args: unknown[]) => {
      if (inFlight === 0) this.#count += 1;
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
