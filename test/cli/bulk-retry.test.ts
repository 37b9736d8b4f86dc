/**
 * Bulk retries from the command line, each run as its own process on the
 * store file of a real gateway: `jobs list|retry` and `inbound retry --status
 * dead` with filters and --dry-run. What was dead is queued again (seen in the
 * store while the gateway is stopped), then done once a gateway runs it.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { delivered } from '../fixtures/connectors/recorder.ts';
import { runCliAsync } from '../support/cli.ts';
import { RECORDER_MODULE, startGatewayBehindProxy, startTestGateway } from '../support/gateway.ts';
import { until } from '../support/wait.ts';

const WAIT_MS = 10_000;
const RETRY_FOR_MS = 3 * 24 * 3_600_000;
/** `flaky` fails its first hand-over: with one try allowed, that reply dies; a retry delivers it. */
const flaky = { name: 'flaky', type: 'recorder', module: RECORDER_MODULE, fail_deliveries: 1 };
const ONE_TRY = { jobs: { max_attempts: 1, platform_max_attempts: 1 } };

const json = (r: { stdout: string }) => JSON.parse(r.stdout) as Record<string, unknown>[] & Record<string, unknown>;

describe('threadgate jobs', () => {
  // Guards against dead jobs that can only be retried one id at a time (after an outage, hundreds of them).
  it('lists dead jobs and queues every match again with a fresh budget; a gateway then runs them to done', async () => {
    const { proxy, ...tg } = await startGatewayBehindProxy(ONE_TRY, [flaky]);
    const cli = (...args: string[]) => runCliAsync([...args, '--config', join(tg.dir, 'threadgate.yaml')]);
    const submit = (threadKey: string, messageId: string) => tg.call('POST', '/connectors/flaky/submit', { threadKey, messageId, senderId: 'a@b.c', body: `text of ${messageId}` });
    // A dead delivery job: the agent's reply fails its only try.
    await submit('T1', 'm-1');
    await until(async () => (await tg.gateway.store.read.threads.byKey('flaky', 'T1'))?.chatId != null, WAIT_MS, 'the chat');
    await tg.sandbox.call('POST', `/_sandbox/chats/${(await tg.gateway.store.read.threads.byKey('flaky', 'T1'))!.chatId}/agent_messages`, { text: 'on it' });
    await until(async () => (await tg.gateway.store.read.deliveries.countByStatus('flaky')).dead === 1, WAIT_MS, 'a dead delivery');
    // A dead platform job: the platform answers 503 to the only try.
    proxy.mode = '503';
    await submit('T2', 'm-2');
    await until(async () => (await tg.gateway.store.read.inbound.byId(2))?.status === 'dead', WAIT_MS, 'a dead message');
    await tg.gateway.close();

    const listed = json(await cli('jobs', 'list', '--status', 'dead', '--json'));
    expect(listed.map((j) => [j.kind, j.attempts, (j.payload as { connector: string }).connector])).toEqual([['platform.post_messages', 1, 'flaky'], ['connector.deliver', 1, 'flaky']]);
    const table = await cli('jobs', 'list', '--status', 'dead');
    expect(table.stdout.split('\n')[0]).toMatch(/^id\s+kind\s+status\s+tries\s+connector\s+queued\s+gives up\s+last error/);
    expect(table.stdout).toContain('TG_PLATFORM_UNAVAILABLE');

    const dry = await cli('jobs', 'retry', '--status', 'dead', '--kind', 'connector.deliver', '--dry-run');
    expect(dry.stdout).toMatch(/^id\s+kind\s+status.*\n[- ]+\n\d+\s+connector\.deliver\s+dead\s+1\/1\s+flaky\s.*\n1 dead job\(s\) match; nothing queued \(--dry-run\)\n$/);
    expect((await cli('jobs', 'retry', '--status', 'dead', '--kind', 'platform.close_session')).stdout).toBe('0 dead job(s) queued again\n');
    expect(json(await cli('jobs', 'list', '--status', 'dead', '--json'))).toHaveLength(2);

    const before = Date.now();
    const retried = await cli('jobs', 'retry', '--status', 'dead', '--since', '1h');
    expect(retried.status).toBe(0);
    expect(retried.stdout).toMatch(/^\d+ connector\.deliver: queued again\n\d+ platform\.post_messages: queued again\n2 dead job\(s\) queued again\n$/);
    const queued = json(await cli('jobs', 'list', '--status', 'queued', '--json'));
    expect(queued.map((j) => j.attempts)).toEqual([0, 0]);
    for (const j of queued) expect(Date.parse(j.giveUpAt as string)).toBeGreaterThanOrEqual(before + RETRY_FOR_MS - 1_000);

    // The helpdesk and the platform are back: a gateway on the same store runs the jobs to done.
    proxy.mode = 'up';
    const again = await startTestGateway({ connectors: [{ ...flaky, fail_deliveries: 0 }], sandbox: tg.sandbox, platformUrl: proxy.url, dir: tg.dir, settings: ONE_TRY });
    // Both platform posts are kept done; the delivery's job is deleted once done (docs/decisions/done-deliveries-forgotten.md).
    await until(async () => (await again.gateway.bridge.queue.countByStatus()).done === 2, WAIT_MS, 'the retried jobs done');
    await until(async () => (await again.gateway.store.read.sql.all(`select id from jobs where kind = 'connector.deliver'`)).length === 0, WAIT_MS, 'the delivery job gone');
    expect((await again.gateway.store.read.inbound.byId(2))!.status).toBe('posted');
    expect((await again.gateway.store.read.deliveries.countByStatus('flaky')).delivered).toBe(1);
    expect(delivered.filter((d) => d.connector === 'flaky').map((d) => d.event.event_type)).toContain('message_created');
  });

  // Guards against a bulk retry that acts on more than dead jobs, or on a typo, instead of refusing it.
  it('refuses what is not a dead-job retry, naming the option', async () => {
    const tg = await startTestGateway({ connectors: [] });
    const cli = (...args: string[]) => runCliAsync([...args, '--config', join(tg.dir, 'threadgate.yaml')]);
    const notDead = await cli('jobs', 'retry', '--status', 'queued');
    expect([notDead.status, notDead.stderr]).toEqual([2, 'threadgate jobs: a bulk retry takes --status dead (only dead jobs are retried), got "queued"\n']);
    expect((await cli('jobs', 'retry', '--status', 'dead', '--limit', '5')).stderr).toContain('--limit does not apply to a retry');
    expect((await cli('jobs', 'retry', '--status', 'dead', '--since', 'last week')).stderr).toContain('--since must be a duration ago');
    expect((await cli('jobs', 'retry', '--dry-run', '7')).stdout).toContain('7: no job 7\n');
    const missing = await cli('jobs', 'retry', '999');
    expect([missing.status, missing.stdout]).toEqual([1, '999: TG_JOB_NOT_FOUND: no job 999\n']);
  });
});

describe('threadgate inbound retry --status dead', () => {
  // Guards against dead messages (a platform outage, an expired token) that can only be retried one id at a time.
  it('retries every dead message the filter matches beside a running gateway, which posts them', async () => {
    const { proxy, ...tg } = await startGatewayBehindProxy(ONE_TRY);
    const cli = (...args: string[]) => runCliAsync([...args, '--config', join(tg.dir, 'threadgate.yaml')]);
    proxy.mode = '503';
    for (const [threadKey, messageId] of [['T1', 'a-1'], ['T2', 'b-1'], ['T2', 'b-2']] as const) {
      await tg.call('POST', '/connectors/desk/submit', { threadKey, messageId, senderId: 'a@b.c', body: `text of ${messageId}` });
    }
    await until(async () => (await Promise.all([1, 2, 3].map((id) => tg.gateway.store.read.inbound.byId(id)))).every((m) => m?.status === 'dead'), WAIT_MS, 'three dead messages');
    proxy.mode = 'up';

    const dry = await cli('inbound', 'retry', '--status', 'dead', '--thread', 'desk:T2', '--dry-run');
    const dryRows = dry.stdout.trimEnd().split('\n');
    expect(dryRows.slice(2, -1).map((l) => l.split(/\s+/)).map((c) => [c[0], c[4]])).toEqual([['2', 'dead'], ['3', 'dead']]);
    expect(dryRows.at(-1)).toBe('2 dead message(s) match; nothing queued (--dry-run)');
    expect((await tg.gateway.store.read.inbound.byId(2))!.status).toBe('dead');
    expect((await cli('inbound', 'retry', '--status', 'dead', '--thread', 'desk:nobody')).stdout).toBe('0 dead message(s) matched, 0 queued again, 0 skipped\n');

    const retried = await cli('inbound', 'retry', '--status', 'dead', '--connector', 'desk', '--since', '1h', '--json');
    expect(retried.status).toBe(0);
    expect(json(retried)).toMatchObject({ dry_run: false, matched: [1, 2, 3], skipped: [] });
    expect((json(retried).retried as { id: number }[]).map((r) => r.id)).toEqual([1, 2, 3]);
    await until(async () => (await Promise.all([1, 2, 3].map((id) => tg.gateway.store.read.inbound.byId(id)))).every((m) => m?.status === 'posted'), WAIT_MS, 'the three messages posted');
    expect((await tg.gateway.store.read.attempts.ofInbound(3)).map((a) => a.outcome)).toEqual(['dead', 'posted']);

    const none = await cli('inbound', 'retry', '--status', 'dead');
    expect(none.stdout).toBe('0 dead message(s) matched, 0 queued again, 0 skipped\n');
    const wrong = await cli('inbound', 'retry', '--status', 'pending');
    expect([wrong.status, wrong.stderr]).toEqual([2, 'threadgate inbound: a bulk retry takes --status dead (only dead messages are retried), got "pending"\n']);
  });
});
