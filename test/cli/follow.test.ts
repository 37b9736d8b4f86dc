/**
 * `deliveries list --follow` and `inbound list --follow` as an operator runs
 * them beside a running gateway, like `tail -f`: the newest rows oldest first,
 * then each new row once as the gateway stores it, filtered, as NDJSON or a
 * table; SIGTERM or SIGINT ends it with 0. A write that commits after a
 * later one (PostgreSQL: concurrent writes) is printed all the same.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { signedHeaders } from '../../src/platform/signature.ts';
import { PG_TYPES, PgSql } from '../../src/store/postgres/pg-sql.ts';
import { Repos } from '../../src/store/repos.ts';
import { startAdminGateway, WAIT_MS } from '../support/admin-gateway.ts';
import { runCliAsync, startCli } from '../support/cli.ts';
import { messageCreatedEnvelope } from '../support/events.ts';
import { RECORDER_MODULE, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { until } from '../support/wait.ts';

const configOf = (tg: TestGateway) => join(tg.dir, 'threadgate.yaml');
const follow = (tg: TestGateway, ...args: string[]) => startCli([...args, '--interval', '100ms', '--config', configOf(tg)]);

/** Everything the command printed, as text (startCli keeps only the JSON lines). */
function stdoutOf(cli: ReturnType<typeof startCli>): () => string {
  let text = '';
  cli.child.stdout.on('data', (chunk: string) => (text += chunk));
  return () => text;
}

/** The agent answers in the chat of `connector`'s thread T1: a signed webhook, stored as a delivery. */
async function reply(tg: TestGateway, connector: string, text: string): Promise<void> {
  const chatId = (await tg.gateway.store.read.threads.byKey(connector, 'T1'))!.chatId!;
  expect((await tg.sandbox.call('POST', `/_sandbox/chats/${chatId}/agent_messages`, { text })).status).toBeLessThan(300);
}

describe('threadgate deliveries list --follow', () => {
  it('prints the newest rows oldest first, then each new one once as it is stored, filtered, as NDJSON; SIGTERM ends it with 0', async () => {
    const tg = await startAdminGateway();
    const all = follow(tg, 'deliveries', 'list', '--follow', '--json');
    const desk = follow(tg, 'deliveries', 'list', '-f', '--json', '--connector', 'desk', '--limit', '1');
    await all.waitForLine((d) => d.status === 'rejected');
    await desk.waitForLine((d) => d.status === 'rejected');
    expect(all.lines.map((d) => [d.connector, d.status])).toEqual([['desk', 'delivered'], ['refuser', 'dead'], ['desk', 'rejected']]);
    expect(desk.lines.map((d) => [d.connector, d.status])).toEqual([['desk', 'rejected']]);

    await reply(tg, 'refuser', 'second reply via refuser');
    const refused = await all.waitForLine((d) => d.connector === 'refuser' && (d.id as number) > (all.lines[2]!.id as number), WAIT_MS);
    await reply(tg, 'desk', 'second reply via desk');
    // The platform sends the reply's webhook on its own time: stored before the refused request below, as asserted.
    await all.waitForLine((d) => d.connector === 'desk' && d.eventType === 'message_created' && (d.id as number) > (refused.id as number), WAIT_MS);
    const raw = JSON.stringify(messageCreatedEnvelope({ threadId: 'desk:T1' }));
    expect((await tg.call('POST', '/webhooks/desk', raw, signedHeaders('0'.repeat(64), raw))).status).toBe(401);
    await all.waitForLine((d) => d.status === 'rejected' && (d.id as number) > (refused.id as number), WAIT_MS);
    await desk.waitForLine((d) => d.status === 'rejected' && (d.id as number) > (refused.id as number), WAIT_MS);

    const ids = all.lines.map((d) => d.id as number);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
    expect(all.lines.slice(3).map((d) => d.connector)).toEqual(['refuser', 'desk', 'desk']);
    expect(all.lines.slice(3, 5).map((d) => d.eventType)).toEqual(['message_created', 'message_created']);
    expect(all.lines.at(-1)).toMatchObject({ status: 'rejected', verification: expect.any(String), receivedAt: expect.stringMatching(/^\d{4}-/) });
    // The desk follower passed over the refuser row (it prints the rows after it) and printed only desk's.
    expect(desk.lines.map((d) => d.connector)).toEqual(['desk', 'desk', 'desk']);
    expect(desk.lines.map((d) => d.id)).toEqual(all.lines.filter((d) => d.connector === 'desk').slice(-3).map((d) => d.id));

    all.child.kill('SIGTERM');
    desk.child.kill('SIGTERM');
    expect(await all.exited).toBe(0);
    expect(await desk.exited).toBe(0);
  });

  it('refuses what --follow cannot go with, naming why, exit 2', async () => {
    const refusals: [string[], string][] = [
      [['deliveries', 'export', '--follow'], '--follow goes with deliveries list, not deliveries export'],
      [['deliveries', 'show', '1', '-f'], '--follow goes with deliveries list, not deliveries show'],
      [['inbound', 'retry', '7', '--follow'], '--follow goes with inbound list, not inbound retry'],
      [['deliveries', 'list', '--follow', '--until', '1h'], '--until does not go with --follow'],
      [['inbound', 'list', '--interval', '2s'], '--interval goes with --follow'],
      [['deliveries', 'list', '--follow', '--interval', '10ms'], '--interval must be at least 100ms, got "10ms"'],
      [['inbound', 'list', '--follow', '--interval', 'soon'], '--interval must be a duration such as 90s'],
      [['deliveries', 'list', '--limit', '0'], '--limit must be a whole number from 1 to 1000'],
    ];
    for (const [args, reason] of refusals) {
      const r = await runCliAsync([...args, '--config', '/nonexistent/threadgate.yaml']);
      expect([r.status, r.stderr], args.join(' ')).toEqual([2, expect.stringContaining(reason)]);
    }
  });
});

describe('threadgate inbound list --follow', () => {
  it('a table: header once, each new message as a row; --status skipped --limit 0 prints only skips from now on; SIGINT ends it with 0', async () => {
    const tg = await startTestGateway({ connectors: [{ name: 'desk', type: 'recorder', module: RECORDER_MODULE }] });
    const submit = (n: number) => tg.call('POST', '/connectors/desk/submit', { threadKey: 'T1', messageId: `desk-${n}`, senderId: 'a@b.c', body: `hi ${n}` });
    await submit(1);
    await tg.call('POST', '/connectors/desk/skip', { messageId: '<old@example.com>', code: 'TG_EMAIL_BULK', reason: 'bulk mail (Precedence: bulk)', summary: 'Offers' });

    const table = follow(tg, 'inbound', 'list', '--follow');
    const tableText = stdoutOf(table);
    const skips = follow(tg, 'inbound', 'list', '-f', '--status', 'skipped', '--limit', '0');
    const skipsText = stdoutOf(skips);
    await until(() => /external id\s+error\n/.test(tableText()) && /desk-1/.test(tableText()), WAIT_MS, 'the first table');
    await until(() => /^id\s+received\s+connector\s+code\s+reason\s+summary\s+external id\n-+/.test(skipsText()), WAIT_MS, 'the skips header');

    await submit(2);
    await tg.call('POST', '/connectors/desk/skip', { messageId: '<ooo@example.com>', code: 'TG_EMAIL_AUTO_REPLY', reason: 'an automatic reply', summary: 'Out of office' });
    await submit(3);
    await until(() => /desk-3/.test(tableText()), WAIT_MS, 'the third message');
    await until(() => /<ooo@example\.com>/.test(skipsText()), WAIT_MS, 'the new skip');

    const rows = tableText().trimEnd().split('\n');
    expect(rows[0]).toMatch(/^id\s+received\s+connector\s+kind\s+status\s+tries\s+thread\s+external id\s+error$/);
    expect(rows.filter((l) => l.startsWith('id '))).toHaveLength(1);
    expect(rows.slice(2).map((l) => /desk-\d/.exec(l)?.[0])).toEqual(['desk-1', 'desk-2', 'desk-3']);
    expect(skipsText()).not.toContain('<old@example.com>');
    expect(skipsText().trimEnd().split('\n').slice(2)).toEqual([expect.stringMatching(/^\d+\s+\S+\s+desk\s+TG_EMAIL_AUTO_REPLY\s+an automatic reply\s+Out of office\s+<ooo@example\.com>$/)]);

    table.child.kill('SIGINT');
    skips.child.kill('SIGTERM');
    expect(await table.exited).toBe(0);
    expect(await skips.exited).toBe(0);
  });

  it.runIf(process.env.THREADGATE_TEST_STORE === 'postgres')('PostgreSQL: a message whose write commits after a later one is printed all the same', async () => {
    const tg = await startTestGateway({ connectors: [{ name: 'desk', type: 'recorder', module: RECORDER_MODULE }] });
    const submit = (n: number) => tg.call('POST', '/connectors/desk/submit', { threadKey: 'T1', messageId: `desk-${n}`, senderId: 'a@b.c', body: `hi ${n}` });
    await submit(1);
    const cli = follow(tg, 'inbound', 'list', '--follow', '--json');
    await cli.waitForLine((m) => m.externalId === 'desk-1');

    // A write of another replica takes its id, and commits only after the gateway stored a later message.
    const slow = new pg.Client({ connectionString: (parse(readFileSync(configOf(tg), 'utf8')) as { store: { url: string } }).store.url, types: PG_TYPES });
    await slow.connect();
    try {
      await slow.query('begin');
      const tx = new Repos(new PgSql(slow));
      const thread = (await tg.gateway.store.read.threads.byKey('desk', 'T1'))!;
      const late = await tx.inbound.insert({ connector: 'desk', thread: thread.id, kind: 'message', externalId: 'desk-late', senderId: 'a@b.c', senderName: null, senderType: 'visitor', body: 'late', fullText: null, variables: null, skipWaitingState: false, closeSession: false }, Date.now());
      await submit(2);
      const later = await cli.waitForLine((m) => m.externalId === 'desk-2');
      expect(later.id as number).toBeGreaterThan(late as number);
      await slow.query('commit');
    } finally {
      await slow.end();
    }
    await cli.waitForLine((m) => m.externalId === 'desk-late');
    expect(cli.lines.map((m) => m.externalId)).toEqual(['desk-1', 'desk-2', 'desk-late']);
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(0);
  });
});
