import { execFileSync } from 'node:child_process';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { openStore } from '../../src/store/database.ts';
import { MIGRATIONS_FOLDER, readJournal } from '../../src/store/migrations.ts';
import { tempDir } from '../support/temp-dir.ts';

function open(path: string, migrationsFolder?: string) {
  const store = openStore({ path, migrationsFolder });
  onTestFinished(() => store.close());
  return store;
}

function tables(store: ReturnType<typeof openStore>): string[] {
  return (store.sqlite.prepare(`select name from sqlite_master where type = 'table' order by name`).all() as { name: string }[])
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
  it('creates the whole schema in an empty file, with WAL, foreign keys and full sync', () => {
    const store = open(join(tempDir(), 'sub', 'threadgate.db'));
    expect(store.migrationStatus()).toEqual({ applied: journal.entries.length, known: journal.entries.length, current: true });
    expect(tables(store)).toEqual(
      expect.arrayContaining(['__drizzle_migrations', 'channel_registrations', 'connector_state', 'jobs']),
    );
    expect(store.sqlite.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(store.sqlite.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(store.sqlite.pragma('synchronous', { simple: true })).toBe(2);
  });

  it('applies nothing the second time it opens the same file', () => {
    const path = join(tempDir(), 'threadgate.db');
    open(path).close();
    const again = open(path);
    const rows = again.sqlite.prepare('select count(*) as n from __drizzle_migrations').get() as { n: number };
    expect(rows.n).toBe(journal.entries.length);
  });

  // Guards against a migration that drops or rewrites data an older version stored.
  it.each(journal.entries.slice(0, -1).map((e) => [e.tag, e.idx + 1] as const))(
    'upgrades a database made at %s, keeping its data',
    (_tag, count) => {
      const path = join(tempDir(), 'threadgate.db');
      const old = openStore({ path, migrationsFolder: migrationsUpTo(count) });
      expect(old.migrationStatus().applied).toBe(count);
      old.sqlite
        .prepare(
          `insert into channel_registrations (connector, config_id, name, room_id, reply_webhook_url, secret)
           values ('mail', 'cfg-1', 'threadgate mail', 'room-1', 'https://gw.example.test/webhooks/mail', 'abc')`,
        )
        .run();
      old.sqlite.prepare(`insert into connector_state (connector, key, value) values ('mail', 'cursor', '{"uid":42}')`).run();
      old.close();

      const upgraded = open(path);
      expect(upgraded.migrationStatus().current).toBe(true);
      expect(upgraded.sqlite.prepare('select config_id, secret from channel_registrations').all()).toEqual([
        { config_id: 'cfg-1', secret: 'abc' },
      ]);
      expect(upgraded.sqlite.prepare('select value from connector_state').get()).toEqual({ value: '{"uid":42}' });
      expect(tables(upgraded)).toContain('jobs');
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
    expect(reopened.migrationStatus()).toMatchObject({ current: true, applied: journal.entries.length });
    const ours = open(join(tempDir(), 'ours.db'));
    expect(ours.sqlite.prepare('select hash, created_at from __drizzle_migrations order by created_at').all()).toEqual(theirRows);
    expect(tables(ours)).toEqual(tables(reopened));
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
  it('gives jobs waiting at the upgrade the 3-day budget from when they were queued, and leaves finished ones alone', () => {
    const path = join(tempDir(), 'upgrade.db');
    const before = open(path, migrationsUpTo(6)); // up to 0005: the deadline columns exist, nothing fills them
    const insert = before.sqlite.prepare(
      `insert into jobs (kind, payload, status, max_attempts, run_at, created_at, updated_at) values ('connector.deliver', '{}', ?, 8, 0, 1000, 1000)`,
    );
    for (const status of ['queued', 'running', 'done', 'dead']) insert.run(status);
    before.close();
    const after = open(path);
    const rows = after.sqlite.prepare(`select status, max_attempts as cap, retry_for_ms as budget, give_up_at as deadline from jobs order by id`).all();
    const DAYS_3 = 3 * 24 * 60 * 60 * 1000;
    expect(rows).toEqual([
      { status: 'queued', cap: 1000, budget: DAYS_3, deadline: 1000 + DAYS_3 },
      { status: 'running', cap: 1000, budget: DAYS_3, deadline: 1000 + DAYS_3 },
      { status: 'done', cap: 8, budget: null, deadline: null },
      { status: 'dead', cap: 8, budget: null, deadline: null },
    ]);
  });
});
