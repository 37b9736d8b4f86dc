/**
 * One support mailbox, three `serve` processes on one PostgreSQL database:
 * exactly one replica holds an IMAP session at any time (counted on the wire,
 * by a pass-through in front of Dovecot), the others stand by; when the holder
 * is SIGKILLed another takes the mailbox over within the lease time and goes on
 * from the shared cursor, and every mail reaches the platform once.
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { appendRaw, mailServers } from '../support/mail-servers.ts';
import { startAll, startReplicaCluster, type ReplicaCluster } from '../support/replica-cluster.ts';
import { startTcpCounter } from '../support/tcp-counter.ts';
import { sleep, until } from '../support/wait.ts';
import { rawMail } from '../connectors/email/hard-mail-support.ts';
import { emailConnector } from '../connectors/email/settings.ts';

const LEASE_SECONDS = 3;
const STANDBY = 'standby: another replica holds its lease';

interface MailHealth {
  ok: boolean;
  details: Record<string, unknown>;
}

async function mailHealth(cluster: ReplicaCluster, i: number): Promise<MailHealth | undefined> {
  if (cluster.replicas[i]!.process === undefined) return undefined;
  const res = await fetch(`${cluster.replicas[i]!.url}/readyz`).catch(() => undefined);
  const body = (await res?.json().catch(() => undefined)) as { connectors?: Record<string, MailHealth> } | undefined;
  return body?.connectors?.mail;
}

/** The replicas whose e-mail connector says it is connected to the mailbox. */
async function holders(cluster: ReplicaCluster): Promise<number[]> {
  const health = await Promise.all(cluster.replicas.map((r) => mailHealth(cluster, r.index)));
  return health.flatMap((h, i) => (h?.details.connected === true ? [i] : []));
}

/** Each mail's Message-ID and status as stored, in the order stored; and how many visitor messages the platform holds. */
async function posted(cluster: ReplicaCluster): Promise<{ stored: { id: string; status: string }[]; onPlatform: number }> {
  const db = new pg.Client({ connectionString: cluster.storeUrl });
  await db.connect();
  try {
    const stored = (await db.query<{ id: string; status: string }>("select external_id as id, status from inbound_messages where connector = 'mail' order by id")).rows;
    const chats = (await db.query<{ chat_id: string }>("select chat_id from threads where connector = 'mail' and chat_id is not null")).rows;
    let onPlatform = 0;
    for (const { chat_id } of chats) {
      const all = (await cluster.sandbox.call('GET', `/_sandbox/chats/${chat_id}/messages`)).body.results as { type: string; sender_type: string }[];
      onPlatform += all.filter((m) => m.type === 'msg' && m.sender_type === 'visitor').length;
    }
    return { stored, onPlatform };
  } finally {
    await db.end();
  }
}

const mail = (n: number) => rawMail({ id: `<t${n}@customer.test>`, subject: `takeover ${n}`, text: `mail ${n}` });

describe('one mailbox on three replicas', () => {
  it('one IMAP session at a time; taken over after the holder is SIGKILLed; every mail posted once', { timeout: 120_000 }, async () => {
    const support = await mailServers().addUser('takeover');
    const imap = await startTcpCounter(mailServers().imap);
    const cluster = await startReplicaCluster({
      replicas: 3,
      connectors: [emailConnector(support, { reconnect_max_seconds: 1 }, { port: imap.port })],
      settings: { jobs: { lease_seconds: LEASE_SECONDS } },
    });
    await startAll(cluster);
    await until(async () => (await holders(cluster)).length === 1, 20_000, 'one replica to hold the mailbox');
    const [first] = await holders(cluster);
    // The others stand by once their ask for the lease is answered (before it they say they are seeking it).
    for (const i of [0, 1, 2].filter((i) => i !== first)) {
      await until(async () => (await mailHealth(cluster, i))?.details.poller === STANDBY, 10_000, `replica ${i} to stand by`);
    }
    expect(await holders(cluster)).toEqual([first]);
    expect(imap.open).toBe(1);

    for (let n = 1; n <= 3; n++) await appendRaw(support, mail(n));
    await until(async () => (await posted(cluster)).stored.filter((m) => m.status === 'posted').length === 3, 20_000, 'three mails posted');

    await cluster.kill(first!);
    const killedAt = Date.now();
    for (let n = 4; n <= 5; n++) await appendRaw(support, mail(n));
    await until(async () => (await holders(cluster)).length === 1, 20_000, 'another replica to take the mailbox over');
    const tookOverMs = Date.now() - killedAt;
    expect(tookOverMs).toBeLessThan((LEASE_SECONDS + 5) * 1000);
    const [second] = await holders(cluster);
    expect(second).not.toBe(first);

    await until(async () => (await posted(cluster)).stored.filter((m) => m.status === 'posted').length === 5, 20_000, 'five mails posted');
    // The old holder comes back and stands by.
    await cluster.start(first!);
    await sleep(2 * LEASE_SECONDS * 1000);
    expect(await holders(cluster)).toEqual([second]);
    expect((await mailHealth(cluster, first!))?.details).toEqual({ poller: STANDBY });

    const { stored, onPlatform } = await posted(cluster);
    expect(stored.map((m) => m.id)).toEqual([1, 2, 3, 4, 5].map((n) => `<t${n}@customer.test>`));
    expect(onPlatform).toBe(5);
    expect(imap.open).toBe(1);
    expect(imap.mostAtOnce).toBe(1);
  });
});
