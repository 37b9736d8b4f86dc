/**
 * A connector that has no use for an event skips it (`deliver` returns
 * `{ skipped: reason }`): the delivery log says `skipped` with the reason,
 * not `delivered` — in the store, the admin API, the command line and
 * /metrics — the connector stays healthy, and a replay skips it again.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { delivered } from '../fixtures/connectors/recorder.ts';
import { startAdminGateway, WAIT_MS } from '../support/admin-gateway.ts';
import { runCliAsync } from '../support/cli.ts';
import { gauge } from '../support/metrics.ts';
import { until } from '../support/wait.ts';

const REASON = 'the recorder takes no reply suggestions';

describe('a skipped delivery', () => {
  it('is logged as skipped with its reason everywhere, counted, and skipped again by a replay', async () => {
    const tg = await startAdminGateway({ extra: [{ name: 'drafts', skip_suggestions: true }] });
    const chatId = (await tg.gateway.store.read.threads.byKey('drafts', 'T1'))!.chatId!;
    const before = delivered.filter((d) => d.connector === 'drafts').length;
    await tg.sandbox.call('POST', `/_sandbox/chats/${chatId}/reply_suggestions`, { suggestion: 'Say sorry' });
    await until(async () => (await tg.gateway.store.read.deliveries.countByStatus('drafts')).skipped === 1, WAIT_MS, 'the suggestion skipped');
    expect(delivered.filter((d) => d.connector === 'drafts')).toHaveLength(before);

    const listed = await tg.admin('GET', '/deliveries?status=skipped');
    expect(listed.status).toBe(200);
    expect(listed.body.results).toEqual([expect.objectContaining({ connector: 'drafts', event_type: 'reply_suggestion_created', status: 'skipped', error: REASON })]);
    const id = listed.body.results[0].id as number;
    const shown = await tg.admin('GET', `/deliveries/${id}`);
    expect(shown.body.attempts).toEqual([expect.objectContaining({ outcome: 'skipped', error: REASON })]);
    expect((await tg.admin('GET', '/counts')).body.deliveries).toMatchObject({ skipped: 1 });
    expect(await gauge(tg, 'threadgate_deliveries_skipped_total{connector="drafts"}')).toBe(1);

    const connectors = (await tg.admin('GET', '/connectors')).body.results as { name: string; up: boolean; deliveries: unknown }[];
    expect(connectors.find((c) => c.name === 'drafts')).toMatchObject({ up: true, deliveries: null });

    const cli = await runCliAsync(['deliveries', 'list', '--status', 'skipped', '--json', '--config', join(tg.dir, 'threadgate.yaml')]);
    expect(cli.status).toBe(0);
    expect(JSON.parse(cli.stdout)).toEqual([expect.objectContaining({ id, status: 'skipped', error: REASON })]);

    expect((await tg.admin('POST', `/deliveries/${id}/replay`)).status).toBeLessThan(300);
    // The replay's attempt is opened when its job is claimed, and closed with the delivery's outcome in one later write.
    const settled = async () => {
      const shown = (await tg.admin('GET', `/deliveries/${id}`)).body as { status: string; attempts: { outcome: string }[] };
      return shown.status === 'skipped' && shown.attempts.length === 2 && shown.attempts[1]!.outcome === 'skipped';
    };
    await until(settled, WAIT_MS, 'the replay skipped');
    const replayed = await tg.admin('GET', `/deliveries/${id}`);
    expect(replayed.body).toMatchObject({ status: 'skipped', error: REASON });
    expect(replayed.body.attempts.map((a: { outcome: string; replay: boolean }) => [a.outcome, a.replay])).toEqual([
      ['skipped', false],
      ['skipped', true],
    ]);
    expect(await gauge(tg, 'threadgate_deliveries_skipped_total{connector="drafts"}')).toBe(2);
  });
});
