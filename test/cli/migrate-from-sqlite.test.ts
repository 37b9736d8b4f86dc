/**
 * `threadgate migrate --from sqlite:PATH`: the store a real gateway filled on
 * SQLite (a thread with references, posted messages and their attempts, an
 * agent's reply delivered, a hand-signed webhook, a skip, connector state, a
 * proxy post, a delivery receipt, a kept file) is copied into an empty PostgreSQL database, and a gateway
 * started there carries on as if nothing moved. And what it refuses: a
 * target that holds rows, a source behind on its migrations, a missing or
 * foreign file, words that are not `sqlite:PATH`, settings without store.url.
 */
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { describe, expect, it, onTestFinished } from 'vitest';
import { stringify } from 'yaml';
import { signedHeaders } from '../../src/platform/signature.ts';
import { openStore } from '../../src/store/database.ts';
import { MIGRATIONS_FOLDER, readJournal } from '../../src/store/migrations.ts';
import { StoreImportError } from '../../src/store/errors.ts';
import { COPIED_TABLES, importSqliteStore } from '../../src/store/postgres/import-sqlite.ts';
import { PG_MIGRATIONS_FOLDER } from '../../src/store/postgres/pg-migrations.ts';
import { openPostgresStore } from '../../src/store/postgres/pg-store.ts';
import { redactUrl } from '../../src/store/postgres/redact-url.ts';
import type { Store } from '../../src/store/store.ts';
import { startTestSandbox } from '../sandbox/support.ts';
import { runCliAsync } from '../support/cli.ts';
import { messageCreatedEnvelope } from '../support/events.ts';
import { openStoppedStore, RECORDER_MODULE, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { postgresDatabase } from '../support/postgres.ts';
import { tempDir } from '../support/temp-dir.ts';
import { until } from '../support/wait.ts';

const WAIT_MS = 8_000;
/** A file's bytes, NULs and invalid UTF-8 among them. */
const FILE_BYTES = Buffer.from([0x25, 0x50, 0x44, 0x46, 0x00, 0xc3, 0x28, 0xff, 0x00]);
const desk = { name: 'desk', type: 'recorder', module: RECORDER_MODULE };

async function counts(store: Store): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const { name } of COPIED_TABLES) out[name] = (await store.read.sql.get<{ n: number }>(`select count(*) as n from ${name}`))!.n;
  return out;
}

/** The `table  rows` lines the command printed. */
const printed = (stdout: string) => Object.fromEntries([...stdout.matchAll(/^(\w+) +(\d+)$/gm)].map((m) => [m[1]!, Number(m[2])]));

/** Settings that name only a store: the PostgreSQL database at `url`. */
function pgConfig(url: string): string {
  const file = join(tempDir(), 'pg.yaml');
  writeFileSync(file, stringify({ store: { url } }));
  return file;
}

async function signedPost(tg: TestGateway, raw: string) {
  const secret = (await tg.gateway.store.read.registrations.get('desk'))!.secret;
  return tg.call('POST', '/webhooks/desk', raw, signedHeaders(secret, raw));
}

/** A SQLite gateway with something in every copied table, stopped. */
async function filledSqliteStore() {
  const sandbox = await startTestSandbox({ retryBaseMs: 20 });
  const tg = await startTestGateway({ connectors: [desk], sandbox, store: 'sqlite' });
  const submit = (body: Record<string, unknown>) => tg.call('POST', '/connectors/desk/submit', { senderId: 'a@b.c', ...body });
  expect((await submit({ threadKey: 'T1', messageId: 'm-1', body: 'hello', fullText: 'hello\u0000 with a NUL', references: ['<a@x>', '<b@x>'] })).status).toBe(202);
  await until(async () => (await tg.gateway.store.read.threads.byKey('desk', 'T1'))?.chatId != null, WAIT_MS, 'a chat for T1');
  const chatId = (await tg.gateway.store.read.threads.byKey('desk', 'T1'))!.chatId!;
  await submit({ threadKey: 'T2', messageId: 'm-2', body: 'another thread' });
  await tg.sandbox.call('POST', `/_sandbox/chats/${chatId}/agent_messages`, { text: 'on it' });
  const configId = (await tg.gateway.store.read.registrations.get('desk'))!.configId;
  const raw = JSON.stringify(messageCreatedEnvelope({ threadId: 'desk:T1', chatId, configId, roomId: sandbox.roomId, messagingChannel: 'recorder' }));
  expect((await signedPost(tg, raw)).body).toMatchObject({ duplicate: false });
  await until(async () => (await tg.gateway.store.read.deliveries.countByStatus('desk')).delivered === 2, WAIT_MS, 'two delivered replies');
  await until(async () => (await tg.gateway.store.read.inbound.byId(2))?.status === 'posted', WAIT_MS, 'both messages posted');
  await tg.gateway.store.write(async (tx) => {
    const now = Date.now();
    await tx.state.set('desk', 'cursor', { uid: 42 }, now);
    await tx.skipped.record({ connector: 'desk', externalId: 'auto-1', senderId: null, summary: 'Out of office', code: 'TG_EMAIL_AUTO_REPLY', reason: 'an auto-reply' }, now);
    await tx.proxyPosts.record(configId, ['pm-1', 'pm-2'], { status: 201, response: '{}' }, now);
    await tx.receipts.record({ connector: 'desk', externalId: 'ext-message_created', status: 'read', at: now - 1_000, reason: null }, now);
    // pm-2's row is pruned: its id must not be handed out again on PostgreSQL (SQLite's AUTOINCREMENT never does).
    await tx.sql.run(`delete from proxy_message_posts where message_id = 'pm-2'`);
    await tx.sql.run(`insert into leases (name, holder, generation, expires_at) values ('poller:desk', 'old', 1, ?)`, [now + 60_000]);
  });
  // A file of the file store, kept through the connector's context: its link must still download after the move.
  const query = new URLSearchParams({ filename: 'scan.pdf', type: 'application/pdf' });
  const kept = await request(`${tg.gateway.url}/connectors/desk/files?${query}`, { method: 'POST', body: FILE_BYTES });
  const fileUrl = ((await kept.body.json()) as { url: string }).url;
  await tg.gateway.close();
  return { sandbox, tg, raw, chatId, fileUrl };
}

describe('threadgate migrate --from sqlite:PATH', () => {
  it('copies every table into an empty PostgreSQL store, where a new gateway carries on with the same data', { timeout: 60_000 }, async () => {
    const { sandbox, tg, raw, chatId, fileUrl } = await filledSqliteStore();
    const sqlite = await openStoppedStore(tg);
    const before = await counts(sqlite);
    const maxIds = (await sqlite.read.sql.get<Record<string, number>>(`select (select max(id) from jobs) as jobs, (select max(id) from inbound_messages) as inbound`))!;
    await sqlite.close();
    expect(Object.entries(before).filter(([, n]) => n === 0).map(([t]) => t)).toEqual([]);

    const url = await postgresDatabase();
    const config = pgConfig(url);
    // A path relative to where the command runs.
    const r = await runCliAsync(['migrate', '--from', 'sqlite:gateway.db', '--config', config], { cwd: tg.dir });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(printed(r.stdout)).toEqual(before);
    const total = Object.values(before).reduce((a, b) => a + b, 0);
    expect(r.stdout).toContain(`copied ${total} row(s) from ${join(tg.dir, 'gateway.db')} into ${redactUrl(url)} in one transaction`);
    expect(r.stdout).not.toContain(new URL(url).password);

    const pg = await openPostgresStore({ url, migrate: false, poolSize: 2 });
    onTestFinished(() => pg.close());
    expect(await counts(pg)).toEqual(before);
    expect(await pg.read.sql.get(`select count(*) as n from leases`)).toEqual({ n: 0 });
    expect((await pg.read.sql.get<{ full_text: string }>(`select full_text from inbound_messages where external_id = 'm-1'`))!.full_text).toBe('hello\uFFFD with a NUL');
    await pg.write((tx) => tx.proxyPosts.record('cfg', ['pm-3'], { status: 201, response: '{}' }, Date.now()));
    expect(await pg.read.sql.all(`select message_id, id from proxy_message_posts order by id`)).toEqual([{ message_id: 'pm-1', id: 1 }, { message_id: 'pm-3', id: 3 }]);

    const next = await startTestGateway({ connectors: [desk], sandbox, settings: { store: { url } } });
    // The same channel configuration, found by the copied registration (not created again).
    expect((await next.gateway.store.read.registrations.get('desk'))!.configId).toBe((await pg.read.registrations.get('desk'))!.configId);
    // The file came along with its bytes and the key that signed its link.
    const file = await request(fileUrl.replace(tg.gateway.publicUrl, next.gateway.publicUrl));
    expect(file.statusCode).toBe(200);
    expect(Buffer.from(await file.body.arrayBuffer()).equals(FILE_BYTES)).toBe(true);
    const listed = await runCliAsync(['deliveries', 'list', '--json', '--config', join(next.dir, 'threadgate.yaml')]);
    expect((JSON.parse(listed.stdout) as { status: string }[]).map((d) => d.status)).toEqual(['delivered', 'delivered']);
    // The webhook received before the move is a duplicate after it.
    expect((await signedPost(next, raw)).body).toMatchObject({ received: true, duplicate: true });

    // A new message on the old thread goes to the same chat, with ids and reference order past the copied ones.
    await next.call('POST', '/connectors/desk/submit', { threadKey: 'T1', messageId: 'm-3', senderId: 'a@b.c', body: 'still there?', references: ['<c@x>'] });
    const m3 = async () => next.gateway.store.read.sql.get<{ id: number; job_id: number; status: string; chat_id: string | null }>(`select id, job_id, status, chat_id from inbound_messages where external_id = 'm-3'`);
    await until(async () => (await m3())?.status === 'posted', WAIT_MS, 'the new message posted');
    const row = (await m3())!;
    expect(row.chat_id).toBe(chatId);
    expect(row.id).toBeGreaterThan(maxIds.inbound!);
    expect(row.job_id).toBeGreaterThan(maxIds.jobs!);
    expect((await next.call('GET', '/connectors/desk/threads/T1')).body.references).toEqual(['<a@x>', '<b@x>', '<c@x>']);
  });

  it('refuses a target that holds rows, naming the tables, and writes nothing', { timeout: 60_000 }, async () => {
    const { tg } = await filledSqliteStore();
    const url = await postgresDatabase();
    const config = pgConfig(url);
    const from = `sqlite:${join(tg.dir, 'gateway.db')}`;
    expect((await runCliAsync(['migrate', '--from', from, '--config', config])).status).toBe(0);
    const pg = await openPostgresStore({ url, migrate: false, poolSize: 2 });
    onTestFinished(() => pg.close());
    const copied = await counts(pg);

    const again = await runCliAsync(['migrate', '--from', from, '--config', config]);
    expect(again.status).toBe(1);
    expect(again.stderr).toContain('TG_STORE_IMPORT_FAILED');
    expect(again.stderr).toContain(`channel_registrations: ${copied.channel_registrations} row(s)`);
    expect(again.stderr).toContain('import only into an empty database');
    expect(again.stdout).toBe('');
    expect(await counts(pg)).toEqual(copied);
  });

  it('refuses a source behind on its migrations, and leaves it as it was', async () => {
    // Guards against: a copy that migrated (wrote to) the store it was told to read.
    const folder = join(tempDir(), 'old-migrations');
    mkdirSync(join(folder, 'meta'), { recursive: true });
    const journal = readJournal();
    const old = { ...journal, entries: journal.entries.slice(0, 3) };
    writeFileSync(join(folder, 'meta', '_journal.json'), JSON.stringify(old));
    for (const e of old.entries) cpSync(join(MIGRATIONS_FOLDER, `${e.tag}.sql`), join(folder, `${e.tag}.sql`));
    const path = join(tempDir(), 'old.db');
    await openStore({ path, migrationsFolder: folder }).close();
    const before = readFileSync(path);

    const r = await runCliAsync(['migrate', '--from', `sqlite:${path}`, '--config', pgConfig(await postgresDatabase())]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`has 3 of this version's ${journal.entries.length} migrations`);
    expect(r.stderr).toContain('`threadgate migrate` on it first');
    expect(readFileSync(path).equals(before)).toBe(true);
  });

  it('says which file is missing or not a database, without the password of the target', async () => {
    const config = pgConfig('postgres://tg:hunter2@127.0.0.1:1/none');
    const dir = tempDir();
    const missing = await runCliAsync(['migrate', '--from', `sqlite:${join(dir, 'nope.db')}`, '--config', config]);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain(`TG_STORE_IMPORT_FAILED: cannot copy ${join(dir, 'nope.db')} into postgres://tg:***@127.0.0.1:1/none: the file does not exist`);
    writeFileSync(join(dir, 'notes.txt'), 'not a database, just some text that is long enough to be read as a header\n'.repeat(20));
    const foreign = await runCliAsync(['migrate', '--from', `sqlite:${join(dir, 'notes.txt')}`, '--config', config]);
    expect(foreign.status).toBe(1);
    expect(foreign.stderr).toContain('not a SQLite database');
    expect(missing.stderr + foreign.stderr).not.toContain('hunter2');
  });

  it('refuses --from without sqlite: and settings without store.url, exit 2', async () => {
    const config = pgConfig('postgres://tg@127.0.0.1:1/none');
    const scheme = await runCliAsync(['migrate', '--from', '/tmp/gateway.db', '--config', config]);
    expect(scheme.status).toBe(2);
    expect(scheme.stderr).toContain('--from must be sqlite:PATH');
    const file = join(tempDir(), 'sqlite.yaml');
    writeFileSync(file, 'store:\n  path: ./tg.db\n');
    const noUrl = await runCliAsync(['migrate', '--from', 'sqlite:/tmp/gateway.db', '--config', file]);
    expect(noUrl.status).toBe(2);
    expect(noUrl.stderr).toContain('copies into the configured PostgreSQL store');
    expect(noUrl.stderr).toContain('store.url');
  });
});

describe('importSqliteStore', () => {
  it('copies more rows than one page holds, each one as it was', async () => {
    const path = join(tempDir(), 'many.db');
    const sqlite = openStore({ path });
    onTestFinished(() => sqlite.close());
    await sqlite.write(async (tx) => {
      for (let i = 0; i < 2_345; i++) await tx.state.set(`c${i % 7}`, `key-${i}`, { i, text: 'x'.repeat(i % 50) }, 1_000 + i);
    });
    const url = await postgresDatabase();
    const seen: string[] = [];
    const result = await importSqliteStore({ from: path, to: { url }, onTable: (table) => seen.push(table) });
    expect(result.find((c) => c.table === 'connector_state')!.rows).toBe(2_345);
    expect(seen).toEqual(COPIED_TABLES.map((t) => t.name));
    const pg = await openPostgresStore({ url, migrate: false, poolSize: 2 });
    onTestFinished(() => pg.close());
    const all = `select connector, key, value, updated_at from connector_state order by connector, key`;
    expect(await pg.read.sql.all(all)).toEqual(await sqlite.read.sql.all(all));
  });

  it('refuses schemas that differ, naming the columns, with nothing copied', async () => {
    // PostgreSQL one migration ahead of this SQLite store: a column the copy could not fill.
    const folder = join(tempDir(), 'pg-migrations');
    cpSync(PG_MIGRATIONS_FOLDER, folder, { recursive: true });
    writeFileSync(join(folder, '9999_extra.sql'), 'ALTER TABLE jobs ADD extra text;\n');
    const path = join(tempDir(), 'one.db');
    const sqlite = openStore({ path });
    onTestFinished(() => sqlite.close());
    await sqlite.write((tx) => tx.state.set('desk', 'cursor', 1, Date.now()));
    const url = await postgresDatabase();
    const copy = importSqliteStore({ from: path, to: { url }, migrationsFolder: folder });
    await expect(copy).rejects.toThrow(StoreImportError);
    await expect(copy).rejects.toThrow('jobs: columns only in PostgreSQL: extra');
    const pg = await openPostgresStore({ url, migrate: false, poolSize: 2, migrationsFolder: folder });
    onTestFinished(() => pg.close());
    expect(await pg.read.sql.get(`select count(*) as n from connector_state`)).toEqual({ n: 0 });
  });
});
