/**
 * WhatsApp's status callbacks in a real gateway: they update the delivery log
 * (the receipt of the delivery whose external id is the wamid: delivered,
 * then read; a `delivered` that comes after `read` changes nothing; a failure
 * shows its reason) and post nothing to the platform. With the counterpart's
 * own flow (sent → delivered → read after each message) the delivery reads
 * `read` on its own.
 */
import { describe, expect, it } from 'vitest';
import { chatTexts } from '../../support/gateway.ts';
import { until } from '../../support/wait.ts';
import { admin, agentSays, ANN, ARRIVES_MS, chatOf, customerTexts, health, settled, waGateway, whatsapp } from './support.ts';

describe('WhatsApp status callbacks', () => {
  it('update the delivery’s receipt — delivered, then read; an older status after read changes nothing — and post nothing', async () => {
    const wa = await whatsapp({ statusFlow: [] });
    const tg = await waGateway(wa);
    await wa.customerSays(ANN, 'Is it shipped?');
    await customerTexts(tg, ANN, 1);
    await agentSays(tg, ANN, 'Yes, this morning.');
    const [delivery] = await settled(tg, 1);
    const wamid = delivery!.external_id!;
    expect(wamid).toBe(wa.sentTo(ANN)[0]!.wamid);
    const receipt = async () => (await admin(tg, 'GET', `/deliveries/${delivery!.id}`)).body.receipt;
    const chatId = await chatOf(tg, ANN);
    const before = (await tg.sandbox.call('GET', `/_sandbox/chats/${chatId}/messages`)).body.results.length as number;
    expect(await receipt()).toBeNull();

    expect((await wa.pushStatus(wamid, 'delivered')).status).toBe(200);
    expect(await receipt()).toMatchObject({ status: 'delivered', reason: null });
    expect((await wa.pushStatus(wamid, 'read')).status).toBe(200);
    const read = await receipt();
    expect(read).toMatchObject({ status: 'read' });
    // Meta sends statuses out of order and again: a late `delivered` leaves `read` as it was.
    expect((await wa.pushStatus(wamid, 'delivered')).status).toBe(200);
    expect(await receipt()).toEqual(read);

    expect((await tg.sandbox.call('GET', `/_sandbox/chats/${chatId}/messages`)).body.results).toHaveLength(before);
    expect(await chatTexts(tg, chatId)).toEqual(['Is it shipped?']);
    expect((await health(tg)).details.receipts_seen).toBe(3);
  });

  it('a failed status is final and shows WhatsApp’s code and words', async () => {
    const wa = await whatsapp({ statusFlow: [] });
    const tg = await waGateway(wa);
    await wa.customerSays(ANN, 'Hello?');
    await customerTexts(tg, ANN, 1);
    await agentSays(tg, ANN, 'Hello Ann.');
    const [delivery] = await settled(tg, 1);
    await wa.pushStatus(delivery!.external_id!, 'sent');
    await wa.pushStatus(delivery!.external_id!, 'failed', [{ code: 131026, title: 'Message undeliverable', details: 'The recipient cannot receive this message.' }]);
    await wa.pushStatus(delivery!.external_id!, 'read');
    expect((await admin(tg, 'GET', `/deliveries/${delivery!.id}`)).body.receipt).toMatchObject({
      status: 'failed',
      reason: '131026 Message undeliverable: The recipient cannot receive this message.',
    });
  });

  it('with WhatsApp’s own flow after each message, the delivery ends up read', async () => {
    const wa = await whatsapp();
    const tg = await waGateway(wa);
    await wa.customerSays(ANN, 'Thanks!');
    await customerTexts(tg, ANN, 1);
    await agentSays(tg, ANN, 'You are welcome.');
    const [delivery] = await settled(tg, 1);
    await until(async () => (await admin(tg, 'GET', `/deliveries/${delivery!.id}`)).body.receipt?.status === 'read', ARRIVES_MS, 'the read receipt');
    await wa.idle();
    expect(wa.pushed.filter((p) => p.raw.includes('"statuses"')).map((p) => p.status)).toEqual([200, 200, 200]);
  });
});
