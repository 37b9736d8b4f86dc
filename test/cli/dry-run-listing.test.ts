/**
 * `--dry-run` of replay, inbound retry and jobs retry, by ids and by filter,
 * on the store of a real gateway: the rows it would act on as a table (the
 * columns of the matching list command), what it would not act on and why,
 * then a summary line — and nothing queued.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliAsync } from '../support/cli.ts';
import { startAdminGateway } from '../support/admin-gateway.ts';
import type { TestGateway } from '../support/gateway.ts';

/** The cells of each table row (header and rule skipped) and the lines after the table. */
function table(stdout: string, columns: number): { rows: string[][]; after: string[] } {
  const lines = stdout.trimEnd().split('\n');
  const body = lines.slice(2).filter((l) => l.split(/\s{2,}/).length >= columns - 1);
  return { rows: body.map((l) => l.split(/\s+/)), after: lines.slice(2 + body.length) };
}

async function populated() {
  const tg = await startAdminGateway(); // desk: one delivered delivery; refuser: one dead (its job dead); one rejected
  const cli = (...args: string[]) => runCliAsync([...args, '--config', join(tg.dir, 'threadgate.yaml')]);
  const jobs = JSON.parse((await cli('jobs', 'list', '--json')).stdout) as { id: number; status: string; kind: string }[];
  /** What any retry or replay changes: a new job, or a dead one queued again. */
  const queued = async () => {
    const counts = await tg.gateway.bridge.queue.countByStatus();
    return { jobs: Object.values(counts).reduce((a, b) => a + b, 0), dead: counts.dead };
  };
  return { tg, cli, jobs, queued };
}

async function deliveryId(tg: TestGateway, status: string): Promise<number> {
  const row = await tg.gateway.store.read.sql.get<{ id: number }>('select id from deliveries where status = ? order by id limit 1', [status]);
  return row!.id;
}

describe('--dry-run', () => {
  // Guards against: `replay 4 --dry-run` answering with the usage alone, and a filtered dry run that only counted.
  it('replay <id>… lists the deliveries found and names the missing ones; nothing replayed', async () => {
    const { tg, cli, queued } = await populated();
    const id = await deliveryId(tg, 'delivered');
    const before = await queued();
    const r = await cli('replay', String(id), '999999', '--dry-run');
    expect(r.status).toBe(1); // the real run would fail for 999999
    expect(r.stdout.split('\n')[0]).toMatch(/^id\s+received\s+connector\s+event\s+status\s+tries\s+thread/);
    const { rows, after } = table(r.stdout, 8);
    expect(rows.map((c) => [c[0], c[2], c[3], c[4]])).toEqual([[String(id), 'desk', 'message_created', 'delivered']]);
    expect(after).toEqual(['999999: no delivery 999999', '1 of 2 deliveries found; nothing replayed (--dry-run)']);
    expect(await queued()).toEqual(before);
    expect(await tg.gateway.store.read.attempts.ofDelivery(id)).toHaveLength(1);

    const json = JSON.parse((await cli('replay', String(id), '--dry-run', '--json')).stdout) as Record<string, unknown>;
    expect(json).toMatchObject({ dry_run: true, matched: 1, replayed: [], missing: [], deliveries: [{ id, connector: 'desk', status: 'delivered' }] });
  });

  it('replay --status lists every match oldest first, in the columns of deliveries list', async () => {
    const { cli, queued } = await populated();
    const before = await queued();
    const r = await cli('replay', '--status', 'dead,delivered', '--dry-run');
    expect(r.status).toBe(0);
    const { rows, after } = table(r.stdout, 8);
    expect(rows.map((c) => [c[2], c[4]])).toEqual([['desk', 'delivered'], ['refuser', 'dead']]);
    expect(Number(rows[0]![0])).toBeLessThan(Number(rows[1]![0]));
    expect(after).toEqual(['2 deliveries match; nothing replayed (--dry-run)']);
    expect(await queued()).toEqual(before);
  });

  it('jobs retry <id>… lists the named jobs and says which would not be queued again; the dead one stays dead', async () => {
    const { cli, jobs, queued } = await populated();
    const dead = jobs.find((j) => j.status === 'dead')!;
    const done = jobs.find((j) => j.status === 'done')!;
    const before = await queued();
    const r = await cli('jobs', 'retry', String(dead.id), String(done.id), '--dry-run');
    expect(r.status).toBe(1);
    expect(r.stdout.split('\n')[0]).toMatch(/^id\s+kind\s+status\s+tries\s+connector\s+queued\s+gives up/);
    const { rows, after } = table(r.stdout, 7);
    expect(rows.map((c) => [c[0], c[1], c[2]])).toEqual([[String(dead.id), dead.kind, 'dead'], [String(done.id), done.kind, 'done']]);
    expect(after).toEqual([`${done.id}: done, not dead: it would not be queued again`, '1 of 2 named job(s) dead, to be queued again; nothing queued (--dry-run)']);
    expect(await queued()).toEqual(before);

    const filtered = await cli('jobs', 'retry', '--status', 'dead', '--connector', 'refuser', '--dry-run', '--json');
    expect(JSON.parse(filtered.stdout)).toMatchObject({ dry_run: true, matched: 1, queued: 0, jobs: [{ id: dead.id, kind: dead.kind, status: 'dead', payload: { connector: 'refuser' } }] });
    expect(await queued()).toEqual(before);
  });

  it('inbound retry <id>… lists the named messages; one already posted would not be retried', async () => {
    const { cli, queued } = await populated();
    const before = await queued();
    const r = await cli('inbound', 'retry', '1', '--dry-run');
    expect(r.status).toBe(1);
    expect(r.stdout.split('\n')[0]).toMatch(/^id\s+received\s+connector\s+kind\s+status/);
    const { rows, after } = table(r.stdout, 8);
    expect(rows.map((c) => [c[0], c[4]])).toEqual([['1', 'posted']]);
    expect(after).toEqual(['1: posted, not dead: it would not be retried', '0 of 1 named message(s) dead, to be queued again; nothing queued (--dry-run)']);
    expect(await queued()).toEqual(before);
  });
});
