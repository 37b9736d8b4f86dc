/**
 * Deduplication across three `serve` processes, by unique keys in the
 * database: one platform webhook sent to every replica at the same instant (a
 * retry that lands elsewhere) is accepted once and delivered once; one
 * customer message posted to every replica at once is accepted once and
 * reaches the platform once.
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { signedHeaders } from '../../src/platform/signature.ts';
import { messageCreatedEnvelope } from '../support/events.ts';
import { startAll, startReplicaCluster } from '../support/replica-cluster.ts';
import { sleep, until } from '../support/wait.ts';
import { deskConnector, platformTexts, receivedReplies, startReplyReceiver } from './traffic.ts';

describe('the same message at three replicas at once', () => {
  it('is accepted once and passed on once, in both directions', { timeout: 90_000 }, async () => {
    const receiver = await startReplyReceiver();
    const cluster = await startReplicaCluster({ replicas: 3, connectors: [deskConnector(receiver)] });
    await startAll(cluster);

    const inbound = { thread_id: 'case-d', messages: [{ message_id: 'd-1', sender_id: 'ann@customer.test', body: 'only once' }] };
    const answers = await Promise.all(
      cluster.replicas.map(async (r) => {
        const res = await fetch(`${r.url}/connectors/desk/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(inbound) });
        expect(res.status).toBe(202);
        return (await res.json()) as { accepted: number; duplicates: number };
      }),
    );
    expect(answers.reduce((n, a) => n + a.accepted, 0)).toBe(1);
    expect(answers.reduce((n, a) => n + a.duplicates, 0)).toBe(2);
    await until(async () => (await platformTexts(cluster, ['case-d'])).get('case-d')!.length > 0, 20_000, 'the message on the platform');

    const db = new pg.Client({ connectionString: cluster.storeUrl });
    await db.connect();
    const { config_id: configId, secret } = (await db.query("select config_id, secret from channel_registrations where connector = 'desk'")).rows[0] as { config_id: string; secret: string };
    const { chat_id: chatId } = (await db.query("select chat_id from threads where connector = 'desk' and thread_key = 'case-d'")).rows[0] as { chat_id: string };
    const raw = JSON.stringify(messageCreatedEnvelope({ threadId: 'desk:case-d', chatId, configId, roomId: cluster.sandbox.roomId, text: 'one reply' }));
    const received = await Promise.all(
      cluster.replicas.map(async (r) => {
        const res = await fetch(`${r.url}/webhooks/desk`, { method: 'POST', headers: { 'content-type': 'application/json', ...signedHeaders(secret, raw) }, body: raw });
        expect(res.status).toBe(200);
        return (await res.json()) as { duplicate: boolean };
      }),
    );
    expect(received.filter((r) => !r.duplicate)).toHaveLength(1);
    await until(async () => receiver.requests.length > 0, 20_000, 'the reply delivered');
    await sleep(1_500);
    expect(receivedReplies(receiver).get('case-d')).toEqual(['one reply']);
    expect((await platformTexts(cluster, ['case-d'])).get('case-d')).toEqual(['only once']);
    const rows = (await db.query("select status, count(*)::int as n from deliveries where connector = 'desk' group by status order by status")).rows;
    await db.end();
    expect(rows).toEqual([
      { status: 'delivered', n: 1 },
      { status: 'duplicate', n: 2 },
    ]);
  });
});
