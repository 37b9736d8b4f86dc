/**
 * The log commands read the gateway's store and never make one: run where
 * the settings point at no store (no settings in this folder, a file that is
 * another program's database, an empty PostgreSQL database) they stop with
 * the place they looked and how to point them at the right one, and leave
 * that place as it was. A --connector filter naming no known connector is
 * refused with the names it could have been, instead of matching nothing.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify } from 'yaml';
import { runCli, runCliAsync } from '../support/cli.ts';
import { startAdminGateway } from '../support/admin-gateway.ts';
import { postgresDatabase } from '../support/postgres.ts';
import { tempDir } from '../support/temp-dir.ts';

const READ_ONLY = [
  ['deliveries', 'list'],
  ['deliveries', 'show', '1'],
  ['deliveries', 'export'],
  ['inbound', 'list'],
  ['inbound', 'show', '1'],
  ['jobs', 'list'],
  ['replay', '1', '--dry-run'],
  ['replay', '--status', 'dead', '--dry-run'],
  ['inbound', 'retry', '--status', 'dead', '--dry-run'],
  ['jobs', 'retry', '1', '--dry-run'],
];

const WAYS = ['--config PATH', 'THREADGATE_CONFIG', 'store.path'];

describe('a log command where there is no store', () => {
  // Guards against: `deliveries list` in the wrong folder creating ./data/threadgate.db and printing an empty table.
  it.each(READ_ONLY.map((args) => [args.join(' '), args] as const))('%s without settings: exit 1 naming the file it looked for, nothing created', (_, args) => {
    const dir = tempDir();
    const r = runCli(args, { cwd: dir });
    expect([r.status, r.stdout]).toEqual([1, '']);
    expect(r.stderr).toContain(`TG_STORE_NOT_FOUND: no store at ${join(dir, 'data', 'threadgate.db')} (from the defaults: no settings file was named)`);
    for (const way of WAYS) expect(r.stderr).toContain(way);
    expect(existsSync(join(dir, 'data'))).toBe(false);
  });

  it('names the settings file whose store.path it followed', () => {
    const dir = tempDir();
    const file = join(dir, 'threadgate.yaml');
    writeFileSync(file, 'store:\n  path: ./state/tg.db\n');
    const r = runCli(['jobs', 'list', '--config', file]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`no store at ${join(dir, 'state', 'tg.db')} (from the settings file ${file})`);
    expect(existsSync(join(dir, 'state'))).toBe(false);
  });

  it("does not migrate another program's SQLite database: it says the file holds no threadgate store", () => {
    const dir = tempDir();
    const store = join(dir, 'other.db');
    const other = new Database(store);
    other.exec('create table notes (body text)');
    other.close();
    writeFileSync(join(dir, 'threadgate.yaml'), `store:\n  path: ${JSON.stringify(store)}\n`);
    const r = runCli(['deliveries', 'list', '--config', join(dir, 'threadgate.yaml')]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`TG_STORE_NOT_FOUND: the file ${store} (from the settings file ${join(dir, 'threadgate.yaml')}) holds no threadgate store; nothing was created in it`);
    const after = new Database(store, { readonly: true });
    expect(after.prepare(`select name from sqlite_master where type = 'table'`).all()).toEqual([{ name: 'notes' }]);
    after.close();
  });

  it('does not migrate an empty PostgreSQL database: it says so, store.url among the ways out, the password not shown', async () => {
    const url = await postgresDatabase();
    const file = join(tempDir(), 'threadgate.yaml');
    writeFileSync(file, stringify({ store: { url } }));
    const r = await runCliAsync(['inbound', 'list', '--config', file]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/TG_STORE_NOT_FOUND: the database postgres:\/\/\S+ \(from the settings file .*\) holds no threadgate store; nothing was migrated in it/);
    expect(r.stderr).toContain('store.url (THREADGATE_STORE_URL)');
    expect(r.stderr).not.toContain(new URL(url).password);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      expect((await client.query(`select table_name from information_schema.tables where table_schema = current_schema()`)).rows).toEqual([]);
    } finally {
      await client.end();
    }
  });
});

describe('--connector naming no known connector', () => {
  // Guards against: a typo in --connector printing an empty table, as if nothing had happened.
  it('is refused with the connectors of the settings and the store, exit 2; a connector only the store knows is accepted', async () => {
    const tg = await startAdminGateway(); // connectors desk and refuser, with deliveries
    const config = join(tg.dir, 'threadgate.yaml');
    const cli = (file: string, ...args: string[]) => runCliAsync([...args, '--config', file]);
    for (const args of [['deliveries', 'list'], ['deliveries', 'export'], ['inbound', 'list'], ['jobs', 'list'], ['replay', '--status', 'dead'], ['inbound', 'retry', '--status', 'dead', '--dry-run'], ['jobs', 'retry', '--status', 'dead']]) {
      const r = await cli(config, ...args, '--connector', 'dsek');
      expect([r.status, r.stdout], args.join(' ')).toEqual([2, '']);
      expect(r.stderr).toMatch(new RegExp(`^threadgate ${args[0]}: --connector dsek names no connector of the settings or of the store .*: the known ones are desk or refuser\\n`));
    }
    expect((await tg.gateway.store.read.deliveries.countByStatus('refuser')).dead).toBe(1); // the refused replay replayed nothing

    // The same store under settings without connectors: the store still knows them.
    const bare = join(tg.dir, 'no-connectors.yaml');
    writeFileSync(bare, stringify({ ...(parseYaml(readFileSync(config, 'utf8')) as object), connectors: [] }));
    const desk = await cli(bare, 'deliveries', 'list', '--connector', 'desk', '--json');
    expect(desk.status).toBe(0);
    expect((JSON.parse(desk.stdout) as { connector: string }[]).map((d) => d.connector)).toEqual(['desk', 'desk']);
    expect((await cli(bare, 'jobs', 'list', '--connector', 'nope')).stderr).toContain('the known ones are desk or refuser');
  });
});
