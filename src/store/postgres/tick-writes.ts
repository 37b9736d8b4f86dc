/**
 * Statements a pooled connection sends within one tick leave in one socket
 * write. node-postgres corks its socket around each statement's messages
 * (Parse, Bind, Execute, Sync) and uncorks it after them: in pipeline mode
 * (pg-store.ts) a batch's twenty statements were twenty `writev` calls,
 * and under load those system calls were more than a quarter of a gateway's
 * CPU (docs/benchmarks.md, "Receiver on PostgreSQL replicas"). Held corked
 * from the first statement of a tick until the next tick starts, they go out
 * together. A tick scheduled from a promise's continuation runs after every
 * continuation queued with it, so a batch's next statements, each issued by
 * its own write, share the write too.
 */
import type { Writable } from 'node:stream';
import type pg from 'pg';

type Query = (...args: unknown[]) => unknown;

/** Sends `client`'s statements of one tick in one write (the pool's 'connect' event: once per connection). */
export function writeOncePerTick(client: pg.PoolClient): void {
  const stream = (client as unknown as { connection?: { stream?: Writable } }).connection?.stream;
  if (typeof stream?.cork !== 'function') return;
  const query = client.query.bind(client) as Query;
  let corked = false;
  const uncork = () => {
    corked = false;
    stream.uncork();
  };
  (client as unknown as { query: Query }).query = (...args: unknown[]) => {
    if (!corked) {
      corked = true;
      stream.cork();
      process.nextTick(uncork);
    }
    return query(...args);
  };
}
