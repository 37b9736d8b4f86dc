/**
 * `npm run bench:statements`: the store's reads on the gateway's hot paths,
 * each run through the SQLite executor as the gateway prepares it (every
 * parameter as `+?`, src/store/sqlite/plain-parameters.ts) and, side by side
 * on the same connection, with the same SQL prepared as written (bare `?`).
 * SQLite re-plans a statement after every bind of a parameter its planner
 * looked at (an equality or a LIMIT beside an ORDER BY, a join's key), so the
 * second column pays a parse and a plan on every run. The store holds 2,000
 * e-mail threads with a reference and a pending message each, and 2,000
 * queued jobs.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { POST_MESSAGES_JOB } from '../../src/bridge/inbound.ts';
import { applyMigrations } from '../../src/store/migrations.ts';
import { Repos } from '../../src/store/repos.ts';
import { SqliteSql } from '../../src/store/sqlite/sqlite-sql.ts';
import { measureAsync, report, type Measured } from '../support/measure.ts';

const THREADS = 2_000;

/** The executor as it was: the gateway's, with each statement prepared with its text as written. */
class AsWrittenSql extends SqliteSql {
  readonly #db: Database.Database;
  readonly #statements = new Map<string, Database.Statement>();
  constructor(db: Database.Database) {
    super(db);
    this.#db = db;
  }
  override statement(sql: string): Database.Statement {
    let s = this.#statements.get(sql);
    if (s === undefined) this.#statements.set(sql, (s = this.#db.prepare(sql)));
    return s;
  }
}

async function seed(repos: Repos, db: Database.Database): Promise<{ threads: number[]; references: string[] }> {
  const threads: number[] = [];
  const references: string[] = [];
  const now = Date.now();
  db.exec('begin');
  for (let i = 0; i < THREADS; i++) {
    const thread = await repos.threads.ensure('mail', `key-${i}`, randomUUID(), now);
    const reference = `<${randomUUID()}@example.test>`;
    await repos.threads.attach('mail', thread.id, [reference], now);
    await repos.inbound.insert(
      { connector: 'mail', externalId: reference, kind: 'message', thread: thread.id, senderId: 'customer@example.test', senderName: 'A Customer',
        senderType: 'visitor', body: 'Hello, '.repeat(60), fullText: 'Hello, '.repeat(60) + '\n> quoted history\n'.repeat(80), variables: null,
        skipWaitingState: false, closeSession: false },
      now,
    );
    await repos.jobs.insert({ kind: POST_MESSAGES_JOB, payload: '{}', orderKey: `post:mail:${thread.id}`, lane: 'mail', maxAttempts: 10, retryForMs: 60_000, giveUpAt: now + 60_000, runAt: now }, now);
    threads.push(thread.id);
    references.push(reference);
  }
  db.exec('commit');
  return { threads, references };
}

export async function benchStatements(): Promise<Measured[]> {
  const dir = mkdtempSync(join(tmpdir(), 'tg-bench-'));
  const db = new Database(join(dir, 'bench.db'));
  db.pragma('journal_mode = WAL');
  applyMigrations(db);
  const plain = new Repos(new SqliteSql(db));
  const bare = new Repos(new AsWrittenSql(db));
  const { threads, references } = await seed(plain, db);
  const pick = <T>(list: T[], i: number) => list[i % list.length] as T;
  const rows: Measured[] = [];
  const cases: [string, (r: Repos, i: number) => Promise<unknown>][] = [
    ["a thread's pending messages", (r, i) => r.inbound.pending(pick(threads, i), 20)],
    ['a thread by a reference (join)', (r, i) => r.threads.byReference('mail', pick(references, i))],
    ["a thread's references", (r, i) => r.threads.references(pick(threads, i))],
    ['the next due time of a lane', (r) => r.jobs.nextDueAt(POST_MESSAGES_JOB, 'mail')],
  ];
  for (const [name, read] of cases) {
    for (const [executor, repos] of [['+?, as the gateway', plain], ['?, as written', bare]] as const) {
      rows.push(await measureAsync(`${name} (${executor})`, 20_000, (i) => read(repos, i)));
    }
  }
  db.close();
  rmSync(dir, { recursive: true, force: true });
  return rows;
}

if (import.meta.main) report(await benchStatements());
