import { execFileSync } from 'node:child_process';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { openStore } from '../../src/store/database.ts';
import { MIGRATIONS_FOLDER, readJournal } from '../../src/store/migrations.ts';
import { ORDERED_UNFINISHED_JOB } from '../../src/store/sqlite/order-index.ts';
import { tempDir } from '../support/temp-dir.ts';
import { expectUpgraded, storeOldDeliveries } from './dedup-upgrade.ts';
import { expectLanes, storeOldJobs } from './lane-upgrade.ts';

function open(path: string, migrationsFolder?: string) {
  const store = openStore({ path, migrationsFolder });
  onTestFinished(() => store.close());
  return store;
}

async function tables(store: ReturnType<typeof openStore>): Promise<string[]> {
  return (await store.read.sql.all<{ name: string }>(`select name from sqlite_master where type = 'table' order by name`))
    .map((r) => r.name)
    .filter((n) => !n.startsWith('sqlite_'));
}

/** A copy of migrations/ that knows only the first `count` migrations: the schema as it was. */
function migrationsUpTo(count: number): string {
  const dir = join(tempDir(), 'migrations');
  cpSync(MIGRATIONS_FOLDER, dir, { recursive: true });
  const journalPath = join(dir, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: unknown[] };
  journal.entries = journal.entries.slice(0, count);
  writeFileSync(journalPath, JSON.stringify(journal));
  return dir;
}

const journal = readJournal();

describe('store migrations', () => {
  it('creates the whole schema in an empty file, with WAL, foreign keys and full sync', async () => {
    const store = open(join(tempDir(), 'sub', 'threadgate.db'));
    expect(await store.migrationStatus()).toEqual({ applied: journal.entries.length, known: journal.entries.length, current: true });
    expect(await tables(store)).toEqual(
      expect.arrayContaining(['__drizzle_migrations', 'channel_registrations', 'connector_state', 'jobs']),
    );
    expect(await store.read.sql.get('pragma journal_mode')).toEqual({ journal_mode: 'wal' });
    expect(await store.read.sql.get('pragma foreign_keys')).toEqual({ foreign_keys: 1 });
    expect(await store.read.sql.get('pragma synchronous')).toEqual({ synchronous: 2 });
  });

  it('applies nothing the second time it opens the same file', async () => {
    const path = join(tempDir(), 'threadgate.db');
    await open(path).close();
    const again = open(path);
    const rows = (await again.read.sql.get<{ n: number }>('select count(*) as n from __drizzle_migrations'))!;
    expect(rows.n).toBe(journal.entries.length);
  });

  // Guards against a migration that drops or rewrites data an older version stored.
  it.each(journal.entries.slice(0, -1).map((e) => [e.tag, e.idx + 1] as const))(
    'upgrades a database made at %s, keeping its data',
    async (_tag, count) => {
      const path = join(tempDir(), 'threadgate.db');
      const old = openStore({ path, migrationsFolder: migrationsUpTo(count) });
      expect((await old.migrationStatus()).applied).toBe(count);
      await old.write(async (tx) => {
        await tx.sql.run(
          `insert into channel_registrations (connector, config_id, name, room_id, reply_webhook_url, secret)
           values ('mail', 'cfg-1', 'threadgate mail', 'room-1', 'https://gw.example.test/webhooks/mail', 'abc')`,
        );
        await tx.sql.run(`insert into connector_state (connector, key, value) values ('mail', 'cursor', '{"uid":42}')`);
      });
      await old.close();

      const upgraded = open(path);
      expect((await upgraded.migrationStatus()).current).toBe(true);
      expect(await upgraded.read.sql.all('select config_id, secret from channel_registrations')).toEqual([
        { config_id: 'cfg-1', secret: 'abc' },
      ]);
      expect(await upgraded.read.sql.get('select value from connector_state')).toEqual({ value: '{"uid":42}' });
      expect(await tables(upgraded)).toContain('jobs');
    },
  );

  // Guards against our lean migrator drifting from drizzle's own bookkeeping (same table, hashes and times).
  it("keeps drizzle's migration records: a store drizzle's migrator made is current for us, and ours matches it", async () => {
    const { drizzle } = await import('drizzle-orm/better-sqlite3');
    const { migrate } = await import('drizzle-orm/better-sqlite3/migrator');
    const BetterSqlite = (await import('better-sqlite3')).default;
    const theirsPath = join(tempDir(), 'theirs.db');
    const theirs = new BetterSqlite(theirsPath);
    migrate(drizzle(theirs), { migrationsFolder: MIGRATIONS_FOLDER, migrationsTable: '__drizzle_migrations' });
    const theirRows = theirs.prepare('select hash, created_at from __drizzle_migrations order by created_at').all();
    theirs.close();

    const reopened = open(theirsPath);
    expect(await reopened.migrationStatus()).toMatchObject({ current: true, applied: journal.entries.length });
    const ours = open(join(tempDir(), 'ours.db'));
    expect(await ours.read.sql.all('select hash, created_at from __drizzle_migrations order by created_at')).toEqual(theirRows);
    expect(await tables(ours)).toEqual(await tables(reopened));
  });

  // Guards against editing src/store/schema.ts without generating its migration.
  it('has a migration for every change of src/store/schema.ts', () => {
    const out = join(tempDir(), 'migrations');
    cpSync(MIGRATIONS_FOLDER, out, { recursive: true });
    const printed = execFileSync(
      join('node_modules', '.bin', 'drizzle-kit'),
      // drizzle-kit prefixes `./` to --out, so it must be relative to the working folder.
      ['generate', '--dialect', 'sqlite', '--schema', './src/store/schema.ts', '--out', relative(process.cwd(), out)],
      { encoding: 'utf8' },
    );
    expect(printed).toMatch(/No schema changes/);
  });

  // Guards against jobs queued before the retry budget became a duration dead-lettering after minutes (their old
  // max_attempts 8, no deadline) when the gateway is upgraded in the middle of an outage.
  it('gives jobs waiting at the upgrade the 3-day budget from when they were queued, and leaves finished ones alone', async () => {
    const path = join(tempDir(), 'upgrade.db');
    const before = open(path, migrationsUpTo(6)); // up to 0005: the deadline columns exist, nothing fills them
    await before.write(async (tx) => {
      for (const status of ['queued', 'running', 'done', 'dead']) {
        await tx.sql.run(
          `insert into jobs (kind, payload, status, max_attempts, run_at, created_at, updated_at) values ('connector.deliver', '{}', ?, 8, 0, 1000, 1000)`,
          [status],
        );
      }
    });
    await before.close();
    const after = open(path);
    const rows = await after.read.sql.all(`select status, max_attempts as cap, retry_for_ms as budget, give_up_at as deadline from jobs order by id`);
    const DAYS_3 = 3 * 24 * 60 * 60 * 1000;
    expect(rows).toEqual([
      { status: 'queued', cap: 1000, budget: DAYS_3, deadline: 1000 + DAYS_3 },
      { status: 'running', cap: 1000, budget: DAYS_3, deadline: 1000 + DAYS_3 },
      { status: 'done', cap: 8, budget: null, deadline: null },
      { status: 'dead', cap: 8, budget: null, deadline: null },
    ]);
  });

  it('gives finished jobs without a finish time their last change as one, and no live job one, so the order index holds live jobs exactly', async () => {
    const path = join(tempDir(), 'order-index.db');
    const before = open(path, migrationsUpTo(12)); // up to 0011: jobs_order keyed by (order_key, status)
    await before.write(async (tx) => {
      for (const [status, finished] of [['queued', 5], ['running', null], ['done', null], ['dead', null], ['done', 7]] as const) {
        await tx.sql.run(
          `insert into jobs (kind, payload, status, max_attempts, run_at, created_at, updated_at, finished_at, order_key)
           values ('platform.post_messages', '{}', ?, 8, 0, 1000, 2000, ?, 'thread:7')`,
          [status, finished],
        );
      }
    });
    await before.close();
    const after = open(path);
    const rows = await after.read.sql.all(`select status, finished_at as finished from jobs order by id`);
    expect(rows).toEqual([
      { status: 'queued', finished: null },
      { status: 'running', finished: null },
      { status: 'done', finished: 2000 },
      { status: 'dead', finished: 2000 },
      { status: 'done', finished: 7 },
    ]);
    const live = await after.read.sql.all<{ status: string }>(
      `select status from jobs indexed by jobs_order where order_key = 'thread:7' and ${ORDERED_UNFINISHED_JOB} order by id`,
    );
    expect(live.map((r) => r.status)).toEqual(['queued', 'running']);
  });

  it("gives stored deliveries their event's time from their body, so the same event sent after the upgrade is still a duplicate", async () => {
    const path = join(tempDir(), 'dedup.db');
    const before = open(path, migrationsUpTo(14)); // up to 0013: deliveries_dedup keyed by (connector, dedup_key)
    await storeOldDeliveries(before);
    await before.close();
    await expectUpgraded(open(path));
  });

  it('gives platform jobs that may still run their connector as their lane', async () => {
    const path = join(tempDir(), 'lanes.db');
    const before = open(path, migrationsUpTo(15)); // up to 0014: no lanes
    await storeOldJobs(before);
    await before.close();
    await expectLanes(open(path));
  });
});
