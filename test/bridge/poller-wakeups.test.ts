/**
 * A connector's poll gets a turn when asked (ConnectorContext.wakePoller, src/connector/runtime.ts): on the replica
 * that runs it, whether the asking replica is that one or another on the same PostgreSQL database (a notification,
 * store/postgres/pg-wakeups.ts) — as the e-mail connector asks for a reply's Sent copy to be appended by the mailbox's
 * one session.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { openPostgresStore } from '../../src/store/postgres/pg-store.ts';
import type { PgWakeups } from '../../src/store/postgres/pg-wakeups.ts';
import { startPollingRuntime } from '../support/polling-runtime.ts';
import { postgresDatabase } from '../support/postgres.ts';
import { until } from '../support/wait.ts';

/** Long: the lease stays where it was taken, and nothing but a wake-up gives the poll a turn. */
const TTL_MS = 60_000;

/** A replica: a store of its own, listening, and a runtime whose connector `mail` counts the turns its poll was given. */
async function replica(url: string, holder: string) {
  const store = await openPostgresStore({ url, poolSize: 2, onIdleError: () => {} });
  store.wakeups?.subscribe(() => {});
  await until(() => (store.wakeups as PgWakeups).connected, 5_000, 'the replica to listen');
  const polling = await startPollingRuntime(store, holder, TTL_MS);
  onTestFinished(async () => {
    await polling.runtime.stopAll();
    await store.close();
  });
  return polling;
}

describe('a poll asked for a turn (PostgreSQL replicas)', () => {
  it('gets it on the replica that runs it, asked there or on another replica', { timeout: 30_000 }, async () => {
    const url = await postgresDatabase();
    const a = await replica(url, 'a');
    await until(() => a.polling(), 5_000, 'A to run the poll');
    const b = await replica(url, 'b');
    expect(b.polling()).toBe(false);
    a.runtime.wakePoller('mail');
    expect(a.turns()).toBe(1);
    b.runtime.wakePoller('mail');
    await until(() => a.turns() === 2, 5_000, 'the poll on A to get the turn B asked for');
    expect(b.turns()).toBe(0);
  });
});
