/**
 * What only the PostgreSQL store has to do: migrations applied once by
 * replicas that start together, `threadgate migrate` and `config check` on a
 * `store.url` (its password never printed), a clear error for a database that
 * cannot be reached, text with NUL characters, and a store that comes back
 * after the database restarts.
 */
import { cpSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InboundBridge } from '../../src/bridge/inbound.ts';
import { JobQueue } from '../../src/jobs/queue.ts';
import { openPostgresStore } from '../../src/store/postgres/pg-store.ts';
import type { Store } from '../../src/store/store.ts';
import { PG_MIGRATIONS_FOLDER, readPgMigrations } from '../../src/store/postgres/pg-migrations.ts';
import { runCliAsync } from '../support/cli.ts';
import { closedPort } from '../support/ports.ts';
import { postgresDatabase } from '../support/postgres.ts';
import { startPostgres, type RunningPostgres } from '../support/postgres-server.ts';
import { openTestStore } from '../support/store-backends.ts';
import { tempDir } from '../support/temp-dir.ts';
import { expectUpgraded, storeOldDeliveries } from './dedup-upgrade.ts';
import { expectLanes, storeOldJobs } from './lane-upgrade.ts';

/** A database migrated up to the migration named `upTo` (its number) and given `rows`, then opened as now and `check`ed. */
async function upgradedFrom(upTo: string, rows: (before: Store) => Promise<void>, check: (after: Store) => Promise<void>): Promise<void> {
  const url = await postgresDatabase();
  const folder = join(tempDir(), 'pg-migrations');
  cpSync(PG_MIGRATIONS_FOLDER, folder, { recursive: true });
  for (const name of readdirSync(folder)) if (name.slice(0, 4) > upTo) rmSync(join(folder, name));
  const before = await openPostgresStore({ url, poolSize: 2, migrationsFolder: folder });
  await rows(before);
  await before.close();
  const after = await openPostgresStore({ url, poolSize: 2 });
  try {
    await check(after);
  } finally {
    await after.close();
  }
}

describe('PostgreSQL store', () => {
  it('three replicas opening an empty database at once apply each migration exactly once', async () => {
    const url = await postgresDatabase();
    const stores = await Promise.all([1, 2, 3].map(() => openPostgresStore({ url, poolSize: 2 })));
    try {
      const statuses = await Promise.all(stores.map((s) => s.migrationStatus()));
      const known = readPgMigrations().length;
      expect(statuses).toEqual([1, 2, 3].map(() => ({ applied: known, known, current: true })));
      const rows = await stores[0]!.read.sql.all<{ name: string }>('select name from threadgate_migrations order by name');
      expect(rows.map((r) => r.name)).toEqual(readPgMigrations().map((m) => m.name));
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });

  it('threadgate migrate and config check work on store.url and never print its password', async () => {
    const url = await postgresDatabase();
    const dir = tempDir();
    const file = join(dir, 'threadgate.yaml');
    writeFileSync(file, `store:\n  url: ${url}\n`);
    const password = new URL(url).password;
    const first = await runCliAsync(['migrate', '--config', file]);
    expect(first.stderr).toBe('');
    expect(first.status).toBe(0);
    expect(first.stdout).toMatch(/^postgres:\/\/threadgate:\*\*\*@127\.0\.0\.1:\d+\/tg_[0-9a-f]+: ([1-9]\d*) migration\(s\) applied, \1 of \1 in place\n$/);
    const second = await runCliAsync(['migrate', '--config', file]);
    expect(second.stdout).toMatch(/: 0 migration\(s\) applied, (\d+) of \1 in place/);
    const check = await runCliAsync(['config', 'check', '--config', file]);
    expect(check.status).toBe(0);
    expect(check.stdout).toContain('store postgres://threadgate:***@127.0.0.1:');
    for (const out of [first, second, check]) expect(out.stdout + out.stderr).not.toContain(password);
  });

  it('a database nobody answers on is one TG_STORE_OPEN_FAILED naming the redacted URL', async () => {
    const url = `postgres://threadgate:very-secret-pw@127.0.0.1:${await closedPort()}/nowhere`;
    const opening = openPostgresStore({ url });
    await expect(opening).rejects.toMatchObject({ code: 'TG_STORE_OPEN_FAILED' });
    const message = ((await opening.catch((err: Error) => err)) as Error).message;
    expect(message).toMatch(/^cannot open the store at postgres:\/\/threadgate:\*\*\*@127\.0\.0\.1:\d+\/nowhere: .*ECONNREFUSED/);
    expect(message).not.toContain('very-secret-pw');
  });

  it('text with a NUL character, which PostgreSQL text cannot hold, is stored with U+FFFD in its place and still deduplicates', async () => {
    const { store } = await openTestStore('postgres');
    const bridge = new InboundBridge({ store, queue: new JobQueue(store), budget: { maxAttempts: 3, retryForMs: 60_000 } });
    const message = { threadKey: 'T\u0000', messageId: '<m\u0000@x>', senderId: 'c@example.test', senderName: 'Ann\u0000', body: 'broken\u0000mail' };
    expect((await bridge.submit('mail', message)).duplicate).toBe(false);
    expect((await bridge.submit('mail', message)).duplicate).toBe(true);
    const row = await store.read.sql.get<{ external_id: string; body: string; sender_name: string }>('select external_id, body, sender_name from inbound_messages');
    expect(row).toEqual({ external_id: '<m\uFFFD@x>', body: 'broken\uFFFDmail', sender_name: 'Ann\uFFFD' });
  });

  it("gives stored deliveries their event's time from their body, so the same event sent after the upgrade is still a duplicate", async () => {
    // Up to 0006: deliveries_dedup keyed by (connector, dedup_key).
    await upgradedFrom('0006', storeOldDeliveries, async (after) => {
      await expectUpgraded(after);
      // The migration's helper function is gone with it.
      expect(await after.read.sql.get(`select count(*)::int as n from pg_proc where proname like 'threadgate_event_at%'`)).toEqual({ n: 0 });
    });
  });

  it('gives platform jobs that may still run their connector as their lane', async () => {
    await upgradedFrom('0008', storeOldJobs, expectLanes); // up to 0008: no lanes
  });

  it('a settings store.url that is not a PostgreSQL URL is refused naming the key', async () => {
    const dir = tempDir();
    const file = join(dir, 'threadgate.yaml');
    writeFileSync(file, 'store:\n  url: mysql://x@y/z\n');
    const check = await runCliAsync(['config', 'check', '--config', file]);
    expect(check.status).toBe(1);
    expect(check.stderr).toContain('store.url: must be a postgres://user:password@host:port/database URL');
  });
});

describe('PostgreSQL store across a database restart', () => {
  // A cluster of its own: the run's shared one must not go down under other test files.
  let own: RunningPostgres;
  beforeAll(async () => {
    own = await startPostgres();
  }, 60_000);
  afterAll(() => own?.stop());

  it('writes fail while the database is down, nothing half-written, and succeed again once it is back', { timeout: 60_000 }, async () => {
    const store = await openPostgresStore({ url: await own.createDatabase('restart'), poolSize: 3 });
    try {
      await store.write((tx) => tx.state.set('c', 'before', 1, Date.now()));
      await own.kill();
      await expect(store.write((tx) => tx.state.set('c', 'during', 2, Date.now()))).rejects.toThrow();
      await expect(store.ping()).rejects.toThrow();
      await own.start();
      // The pool drops its broken connections and opens new ones.
      let recovered = false;
      for (let i = 0; i < 50 && !recovered; i++) {
        recovered = await store.write((tx) => tx.state.set('c', 'after', 3, Date.now())).then(() => true, () => false);
        if (!recovered) await new Promise((r) => setTimeout(r, 100));
      }
      expect(recovered).toBe(true);
      expect(await store.read.state.get('c', 'before')).toBe(1);
      expect(await store.read.state.get('c', 'during')).toBeUndefined();
      expect(await store.read.state.get('c', 'after')).toBe(3);
    } finally {
      await store.close();
    }
  });
});
