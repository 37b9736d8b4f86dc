/**
 * A delivery's success updates its row in place on PostgreSQL (HOT): no index
 * of deliveries names `status` (migrations/postgres/0013), and the statuses an
 * operator looks up among many rows are indexed through `flagged_status`. On
 * both backends the listings, the dead-letter gauge and the refused bytes
 * find the same rows by status; on PostgreSQL the flagged ones are read
 * through deliveries_flagged.
 */
import { describe, expect, it } from 'vitest';
import { DeliveriesRepo, storedBytes, type NewDelivery } from '../../src/store/deliveries-repo.ts';
import { deadLettersByConnector } from '../../src/store/health-queries.ts';
import { listDeliveries, matchingDeliveryIds } from '../../src/store/log-queries.ts';
import type { DeliveryStatus } from '../../src/store/statuses.ts';
import type { Store } from '../../src/store/store.ts';
import { explainPlans } from '../support/explain-plans.ts';
import { RecordingSql } from '../support/recording-sql.ts';
import { openTestStore, STORE_BACKENDS } from '../support/store-backends.ts';

const delivery = (n: number, connector = 'desk'): NewDelivery => ({
  connector, eventType: 'message_created', dedupKey: `k-${n}`, eventAt: '2026-11-29T08:00:00Z', duplicateOf: null, threadId: `t-${n}`, chatId: null,
  body: `{"n":${n}}`, bodyTruncated: false, headers: {}, verification: 'valid', status: 'accepted', error: null,
});

/** Each delivery's own dedup key. */
let stores = 0;

/** Stores one delivery per entry (accepted, or rejected as refused ones are), then moves each to its status; the ids, in order. */
async function stored(store: Store, statuses: readonly DeliveryStatus[], connector?: string): Promise<number[]> {
  const now = Date.now();
  const ids = await store.write(async (tx) => {
    const out: number[] = [];
    for (const [i, s] of statuses.entries()) out.push(await tx.deliveries.insert({ ...delivery((stores += 1), connector), status: s === 'rejected' ? 'rejected' : 'accepted' }, now - i));
    return out;
  });
  await store.write(async (tx) => {
    for (const [i, s] of statuses.entries()) if (s !== 'accepted' && s !== 'rejected') await tx.deliveries.recordOutcome(ids[i]!, s, s === 'delivered' ? null : 'boom', null, now);
  });
  return ids;
}

/** What one write's outcome did to deliveries' rows in this transaction: updates, and how many of them in place. */
async function outcomeUpdates(store: Store, id: number, status: DeliveryStatus): Promise<{ updated: number; inPlace: number }> {
  return store.write(async (tx) => {
    // The server's counts of this connection not reported yet (PostgreSQL 15 adds earlier transactions' to them).
    const counts = async () => {
      const row = await tx.sql.get<{ updated: string; hot: string }>(
        `select pg_stat_get_xact_tuples_updated('deliveries'::regclass) as updated, pg_stat_get_xact_tuples_hot_updated('deliveries'::regclass) as hot`,
      );
      return { updated: Number(row!.updated), inPlace: Number(row!.hot) };
    };
    const before = await counts();
    await tx.deliveries.recordOutcome(id, status, status === 'delivered' ? null : 'boom', null, Date.now());
    const after = await counts();
    return { updated: after.updated - before.updated, inPlace: after.inPlace - before.inPlace };
  });
}

/** The plans of the statements `read` makes (support/explain-plans.ts). */
async function plansOf(store: Store, read: (sql: RecordingSql) => Promise<unknown>): Promise<string[]> {
  const recording = new RecordingSql(store.read.sql);
  await read(recording);
  return explainPlans(store, recording.seen);
}

describe.each(STORE_BACKENDS)('%s store: deliveries by status', (backend) => {
  it('lists, counts and sums the deliveries of each status, flagged ones and others', async () => {
    const { store } = await openTestStore(backend);
    const statuses: DeliveryStatus[] = ['delivered', 'dead', 'failed', 'accepted', 'rejected', 'skipped', 'dead', 'delivered'];
    const ids = await stored(store, statuses);
    const other = await stored(store, ['dead'], 'mail');
    const idsOf = (...wanted: DeliveryStatus[]) => ids.filter((_, i) => wanted.includes(statuses[i]!)).sort((a, b) => a - b);
    const listed = async (...status: DeliveryStatus[]) => (await listDeliveries(store.read.sql, { status, connector: 'desk' })).map((d) => d.id).sort((a, b) => a - b);
    expect(await listed('dead')).toEqual(idsOf('dead'));
    expect(await listed('dead', 'failed')).toEqual(idsOf('dead', 'failed'));
    expect(await listed('delivered')).toEqual(idsOf('delivered'));
    expect(await listed('accepted', 'dead')).toEqual(idsOf('accepted', 'dead'));
    expect(await listed('rejected')).toEqual(idsOf('rejected'));
    expect(await matchingDeliveryIds(store.read.sql, { status: ['dead'] })).toEqual([...idsOf('dead'), ...other]);
    // A delivery retried after failing leaves the flagged ones.
    await store.write((tx) => tx.deliveries.recordOutcome(idsOf('failed')[0]!, 'delivered', null, null, Date.now()));
    expect(await listed('failed')).toEqual([]);
    expect(await listed('delivered')).toEqual([...idsOf('delivered'), ...idsOf('failed')].sort((a, b) => a - b));

    const dead = await deadLettersByConnector(store.read.sql);
    expect(dead.filter((d) => d.record === 'delivery').sort((a, b) => a.connector.localeCompare(b.connector))).toEqual([
      { record: 'delivery', connector: 'desk', n: 2 },
      { record: 'delivery', connector: 'mail', n: 1 },
    ]);
    const rejected = (await store.read.deliveries.byId(idsOf('rejected')[0]!))!;
    expect(await store.read.deliveries.refusedBytes()).toBe(storedBytes(rejected));
  });

  it.runIf(backend === 'postgres')('updates a delivery in place when it succeeds, and moves it through the flagged index when it fails', async () => {
    const { store } = await openTestStore(backend);
    const [first, second, third] = await stored(store, ['accepted', 'accepted', 'accepted']);
    expect(await outcomeUpdates(store, first!, 'delivered')).toEqual({ updated: 1, inPlace: 1 });
    expect(await outcomeUpdates(store, second!, 'skipped')).toEqual({ updated: 1, inPlace: 1 });
    // Into a flagged status and out of it: flagged_status changes, an indexed column, so the row moves.
    expect(await outcomeUpdates(store, third!, 'failed')).toEqual({ updated: 1, inPlace: 0 });
    expect(await outcomeUpdates(store, third!, 'delivered')).toEqual({ updated: 1, inPlace: 0 });
    const flagged = await store.read.sql.all<{ id: number; flagged_status: string | null }>(`select id, flagged_status from deliveries order by id`);
    expect(flagged.map((r) => r.flagged_status)).toEqual([null, null, null]);
    // Room on each page for the new versions beside the old: deliveries', jobs' and attempts' (postgres/0013, 0014).
    const options = await store.read.sql.all<{ relname: string; options: string[] }>(
      `select relname, reloptions as options from pg_class where relname in ('deliveries', 'jobs', 'delivery_attempts') order by relname`,
    );
    expect(options.map((o) => [o.relname, o.options])).toEqual([['deliveries', ['fillfactor=70']], ['delivery_attempts', ['fillfactor=80']], ['jobs', ['fillfactor=70']]]);
  });

  it.runIf(backend === 'postgres')('reads the flagged statuses through deliveries_flagged: the log, the dead letters, the refused bytes', async () => {
    const { store } = await openTestStore(backend);
    await stored(store, [...Array<DeliveryStatus>(300).fill('delivered'), 'dead', 'failed', 'rejected']);
    await store.write((tx) => tx.sql.run('analyze deliveries'));
    const [list, ids] = await plansOf(store, async (sql) => {
      await listDeliveries(sql, { status: ['dead', 'failed'] });
      await matchingDeliveryIds(sql, { status: ['rejected'] });
    });
    const [dead] = await plansOf(store, (sql) => deadLettersByConnector(sql));
    const [refused] = await plansOf(store, (sql) => new DeliveriesRepo(sql).refusedBytes());
    for (const plan of [list, ids, dead, refused]) {
      expect(plan).toContain('deliveries_flagged');
      expect(plan).not.toMatch(/Seq Scan on deliveries/);
    }
  });
});
