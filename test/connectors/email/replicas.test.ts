/**
 * Two gateways on one PostgreSQL database, one support mailbox: exactly one
 * replica reads the mailbox at a time (the other's connector says standby),
 * every mail is posted once, and when the reading replica stops the other
 * takes the mailbox over and goes on from the shared cursor.
 */
import { describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.ts';
import { appendRaw, fetchAll, mailServers, sendMail, waitForMail } from '../../support/mail-servers.ts';
import { until } from '../../support/wait.ts';
import { ARRIVES_MS, cursorOf, inbound, rawMail } from './hard-mail-support.ts';
import { emailConnector } from './settings.ts';

const STANDBY = 'standby: another replica holds its lease';
const mailHealth = async (tg: TestGateway) => (await tg.call('GET', '/readyz')).body?.connectors?.mail as { ok: boolean; details: Record<string, unknown> } | undefined;

/** `a` reads the mailbox; `b`, started after it on the same database, stands by (its log lines in `bLines`). */
async function twoReplicas(connector: Record<string, unknown>) {
  // A short lease, so the standby asks again about every second.
  const settings = { jobs: { lease_seconds: 3 } };
  const a = await startTestGateway({ connectors: [connector], store: 'postgres', settings });
  await until(async () => (await mailHealth(a))?.details.connected === true, ARRIVES_MS, 'a to read the mailbox');
  const bLines: string[] = [];
  const b = await startTestGateway({ connectors: [connector], sandbox: a.sandbox, sameStoreAs: a, settings, logLines: bLines });
  return { a, b, bLines };
}

describe('the e-mail connector on two replicas', () => {
  it('one replica reads the mailbox; all mail is posted once; the other takes over when it stops', { timeout: 60_000 }, async () => {
    const support = await mailServers().addUser('replicas');
    const { a, b } = await twoReplicas(emailConnector(support, { reconnect_max_seconds: 1 }));
    // b stands by once its first ask for the lease is answered, and goes on standing by as it asks again.
    await until(async () => (await mailHealth(b))?.details.poller === STANDBY, ARRIVES_MS, 'b to stand by');
    await new Promise((r) => setTimeout(r, 1_500));
    expect((await mailHealth(b))?.details).toEqual({ poller: STANDBY });

    for (let n = 1; n <= 3; n++) await appendRaw(support, rawMail({ id: `<r${n}@customer.test>`, subject: `r${n}`, text: `mail ${n}` }));
    await until(async () => (await inbound(a)).filter((m) => m.status === 'posted').length === 3, ARRIVES_MS, 'three posted');

    await a.gateway.close();
    await until(async () => (await mailHealth(b))?.details.connected === true, ARRIVES_MS, 'b to take the mailbox over');
    for (let n = 4; n <= 5; n++) await appendRaw(support, rawMail({ id: `<r${n}@customer.test>`, subject: `r${n}`, text: `mail ${n}` }));
    await until(async () => (await inbound(b)).filter((m) => m.status === 'posted').length === 5, ARRIVES_MS, 'five posted');
    expect((await inbound(b)).map((m) => m.id)).toEqual([1, 2, 3, 4, 5].map((n) => `<r${n}@customer.test>`));
    expect((await cursorOf(b))?.lastUid).toBe(5);
    const lease = await b.gateway.store.read.leases.get('poller:mail');
    expect(lease?.generation).toBe(2);
  });

  it('a reply sent by the replica that does not hold the mailbox is filed in Sent by the one that does', { timeout: 60_000 }, async () => {
    const servers = mailServers();
    const support = await servers.addUser('replicas-sent');
    const customer = await servers.addUser('ann', 'customer.test');
    // b starts last: the channel's webhook URL is now b's, so the agent's reply is delivered by b.
    const { a, b, bLines } = await twoReplicas(emailConnector(support, { reconnect_max_seconds: 1 }));
    // b's registration, made in the background, has pointed the channel's webhooks at b.
    await until(
      async () => (await b.gateway.store.read.registrations.get('mail'))?.replyWebhookUrl === `${b.gateway.publicUrl}/webhooks/mail`,
      ARRIVES_MS,
      "the channel's webhooks sent to b",
    );
    await sendMail({ from: customer.address, to: support.address, subject: 'Where is it?', text: 'My parcel.\n' });
    await until(async () => (await inbound(a)).some((m) => m.status === 'posted'), ARRIVES_MS, 'the mail posted');
    const { chatId } = (await a.gateway.store.read.sql.get(`select chat_id as "chatId" from threads where connector = 'mail'`)) as { chatId: string };
    await a.sandbox.call('POST', `/_sandbox/chats/${chatId}/agent_messages`, { text: 'On its way.' });
    const [reply] = await waitForMail(customer, 1, ARRIVES_MS);
    // b delivered it (its log says so, once its delivery's outcome is written), and b does not hold the mailbox.
    const delivered = () => bLines.map((l) => JSON.parse(l) as { msg?: string }).filter((l) => l.msg === 'delivered');
    await until(async () => delivered().length > 0, ARRIVES_MS, "b's delivered line");
    expect(delivered()).toHaveLength(1);
    await until(async () => (await fetchAll(support, 'Sent')).length === 1, ARRIVES_MS, 'the copy in Sent');
    expect((await fetchAll(support, 'Sent'))[0]!.messageId).toBe(reply!.messageId);
    expect((await mailHealth(b))?.details).toEqual({ poller: STANDBY });
  });
});
