/**
 * SIGKILL between the statements of a group on PostgreSQL, whose webhooks
 * run at once in one transaction (a batch): a child takes twenty webhooks in
 * one turn and is killed after the first, second or third round of their
 * statements (test/support/pg-intake.ts run as a script). Nothing of the group is stored
 * — no delivery without its job, no job without its delivery — and the same
 * webhooks sent again (as the platform does when it got no answer) are
 * stored once each, as originals with their jobs.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { Store } from '../../src/store/store.ts';
import { startPgIntake } from '../support/pg-intake.ts';
import { postgresDatabase } from '../support/postgres.ts';

const CHILD = join(import.meta.dirname, '../support/pg-intake.ts');
const GROUP = 20;

function runChild(url: string, statements: number, ids: readonly string[]): Promise<NodeJS.Signals | null> {
  const child = spawn(process.execPath, [CHILD, url, String(statements), JSON.stringify(ids)], { stdio: ['ignore', 'ignore', 'inherit'] });
  return new Promise((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
}

const count = async (store: Store, sql: string) => (await store.read.sql.get<{ n: number }>(sql))!.n;

describe('SIGKILL between the statements of a group (PostgreSQL)', () => {
  it.each([1, 2, 3])('after %i round(s) of statements: nothing of the group stored; sent again, each stored once', { timeout: 60_000 }, async (statements) => {
    const url = await postgresDatabase();
    const ids = Array.from({ length: GROUP }, () => randomUUID());
    expect(await runChild(url, statements, ids)).toBe('SIGKILL');
    const intake = await startPgIntake(url);
    onTestFinished(() => intake.close());
    const { store } = intake;
    // The child's warm-up webhook and this process's: committed before the group.
    expect(await count(store, `select count(*) as n from deliveries where thread_id like 't-%'`)).toBe(0);
    expect(await count(store, `select count(*) as n from jobs j where not exists (select 1 from deliveries d where d.job_id = j.id)`)).toBe(0);
    await Promise.all(ids.map((id, i) => intake.send(`t-${i}`, id)));
    expect(await count(store, `select count(*) as n from deliveries where thread_id like 't-%' and status = 'accepted' and duplicate_of is null`)).toBe(GROUP);
    expect(await count(store, `select count(*) as n from deliveries where status = 'duplicate'`)).toBe(0);
    expect(await count(store, `select count(*) as n from deliveries d join jobs j on j.id = d.job_id where d.thread_id like 't-%'`)).toBe(GROUP);
  });
});
