/**
 * The delivery log from the command line, on a store a running gateway is
 * writing: listing with filters, one record in full, replays that cause
 * exactly one new downstream effect, bulk replays over mixed statuses, and
 * inbound retries — each run as its own process, as an operator would.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { delivered } from '../fixtures/connectors/recorder.ts';
import { until } from '../support/wait.ts';
import { runCliAsync } from '../support/cli.ts';
import { startAdminGateway, WAIT_MS } from '../support/admin-gateway.ts';
import { startGatewayBehindProxy, type TestGateway } from '../support/gateway.ts';

/** A gateway (test/support/admin-gateway.ts) with one delivered, one dead and one rejected delivery. */
async function populated(): Promise<{ tg: TestGateway; cli: (...args: string[]) => ReturnType<typeof runCliAsync> }> {
  const tg = await startAdminGateway();
  const cli = (...args: string[]) => runCliAsync([...args, '--config', join(tg.dir, 'threadgate.yaml')]);
  return { tg, cli };
}

const json = (r: { stdout: string }) => JSON.parse(r.stdout) as Record<string, unknown>[] & Record<string, unknown>;

describe('threadgate deliveries', () => {
  it('lists newest first with filters, as a table or JSON, and refuses a bad filter naming the option', async () => {
    const { cli } = await populated();
    const all = json(await cli('deliveries', 'list', '--json'));
    expect(all.map((d) => d.status)).toEqual(['rejected', 'dead', 'delivered']);
    expect(json(await cli('deliveries', 'list', '--status', 'dead', '--json')).map((d) => d.connector)).toEqual(['refuser']);
    expect(json(await cli('deliveries', 'list', '--connector', 'desk', '--status', 'delivered,rejected', '--json'))).toHaveLength(2);
    expect(json(await cli('deliveries', 'list', '--since', '1h', '--event', 'message_created', '--json'))).toHaveLength(2);
    expect(json(await cli('deliveries', 'list', '--until', '2000-01-01T00:00:00Z', '--json'))).toEqual([]);
    const table = await cli('deliveries', 'list');
    expect(table.status).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(/^id\s+received\s+connector\s+event\s+status/);
    expect(table.stdout).toContain('TG_DELIVERY_PERMANENT');

    const badTime = await cli('deliveries', 'list', '--since', 'last tuesday');
    expect(badTime.status).toBe(2);
    expect(badTime.stderr).toContain('--since must be a duration ago');
    const badStatus = await cli('deliveries', 'list', '--status', 'lost');
    expect(badStatus.status).toBe(2);
    expect(badStatus.stderr).toContain('--status must be one of accepted, duplicate, rejected, delivered, skipped, failed, dead');
  });

  it('shows one delivery with headers (signature kept), the body as JSON and its attempts', async () => {
    const { tg, cli } = await populated();
    const id = json(await cli('deliveries', 'list', '--status', 'dead', '--json'))[0]!.id as number;
    const shown = json(await cli('deliveries', 'show', String(id), '--json'));
    expect(shown).toMatchObject({ id, connector: 'refuser', status: 'dead', verification: 'valid', eventType: 'message_created' });
    expect((shown.headers as Record<string, string>)['x-svc-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect((shown.body as { message: { message: string } }).message.message).toBe('reply via refuser');
    expect(shown.attempts).toEqual([expect.objectContaining({ attempt: 1, outcome: 'dead', replay: false, error: expect.stringContaining('TG_DELIVERY_PERMANENT') })]);
    const text = await cli('deliveries', 'show', String(id));
    expect(text.stdout).toContain('"event_type": "message_created"');
    const missing = await cli('deliveries', 'show', '999999');
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain('no delivery 999999');
    void tg;
  });
});

describe('threadgate replay', () => {
  it('replays one delivery through its connector exactly once more, recorded as a replay attempt', async () => {
    const { tg, cli } = await populated();
    const id = json(await cli('deliveries', 'list', '--status', 'delivered', '--json'))[0]!.id as number;
    const before = delivered.filter((d) => d.connector === 'desk').length;
    const r = await cli('replay', String(id));
    expect(r.stdout).toMatch(new RegExp(`^${id}: queued again as job \\d+`));
    await until(async () => (await tg.gateway.store.read.attempts.ofDelivery(id)).length === 2 && (await tg.gateway.store.read.deliveries.byId(id))!.status === 'delivered', WAIT_MS, 'the replay');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(delivered.filter((d) => d.connector === 'desk').length - before).toBe(1);
    expect((await tg.gateway.store.read.attempts.ofDelivery(id)).map((a) => [a.replay, a.outcome])).toEqual([[false, 'delivered'], [true, 'delivered']]);
  });

  it('bulk replay over a filter of mixed statuses: dry run lists, the real run replays and names what it skipped', async () => {
    const { tg, cli } = await populated();
    const dry = await cli('replay', '--status', 'dead,rejected', '--dry-run');
    const lines = dry.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^id\s+received\s+connector\s+event\s+status/);
    expect(lines.slice(2, -1).map((l) => l.split(/\s+/)[4])).toEqual(['dead', 'rejected']);
    expect(lines.at(-1)).toBe('2 deliveries match; nothing replayed (--dry-run)');
    const run = await cli('replay', '--status', 'dead,rejected', '--json');
    expect(run.status).toBe(1); // the rejected one cannot be replayed
    const result = JSON.parse(run.stdout) as { matched: number; replayed: number[]; skipped: { id: number; reason: string }[] };
    expect(result.matched).toBe(2);
    expect(result.replayed).toHaveLength(1);
    expect(result.skipped[0]!.reason).toContain('was rejected');
    const deadId = result.replayed[0]!;
    await until(async () => (await tg.gateway.store.read.attempts.ofDelivery(deadId)).length === 2, WAIT_MS, 'the replayed attempt');
    await until(async () => (await tg.gateway.store.read.deliveries.byId(deadId))!.status === 'dead', WAIT_MS, 'the refuser to refuse again');
    expect((await cli('replay', '999999', '--dry-run')).stdout).toContain('999999: no delivery 999999');
  });
});

describe('threadgate inbound', () => {
  it('lists and shows inbound messages with their attempts, and retries a dead one that then reaches the platform', async () => {
    const { proxy, ...tg } = await startGatewayBehindProxy({ jobs: { platform_max_attempts: 1 } });
    const cli = (...args: string[]) => runCliAsync([...args, '--config', join(tg.dir, 'threadgate.yaml')]);
    proxy.mode = '503';
    await tg.call('POST', '/connectors/desk/submit', { threadKey: 'T9', messageId: 'm-9', senderId: 'a@b.c', body: 'during the outage' });
    // With one attempt allowed, the 503 dead-letters the job and the message with it.
    await until(async () => (await tg.gateway.store.read.inbound.byId(1))?.status === 'dead', WAIT_MS, 'a dead message');
    const listed = json(await cli('inbound', 'list', '--status', 'dead', '--json'));
    expect(listed).toEqual([expect.objectContaining({ id: 1, externalId: 'm-9', threadId: 'desk:T9', status: 'dead', attempts: 1 })]);
    const shown = json(await cli('inbound', 'show', '1', '--json'));
    expect(shown.lastError).toContain('503');
    expect(shown.attempts).toEqual([expect.objectContaining({ outcome: 'dead', status: 503 })]);

    proxy.mode = 'up';
    const retried = await cli('inbound', 'retry', '1');
    expect(retried.stdout).toMatch(/^1: queued again as job \d+/);
    await until(async () => (await tg.gateway.store.read.inbound.byId(1))?.status === 'posted', WAIT_MS, 'the message posted');
    expect((await tg.gateway.store.read.attempts.ofInbound(1)).map((a) => a.outcome)).toEqual(['dead', 'posted']);
    const again = await cli('inbound', 'retry', '1', '2');
    expect(again.status).toBe(1);
    expect(again.stdout).toContain('1: TG_NOT_REPLAYABLE: inbound message 1 is posted');
    expect(again.stdout).toContain('2: TG_RECORD_NOT_FOUND');
  });
});
