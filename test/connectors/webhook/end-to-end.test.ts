/**
 * The webhook connector in a real gateway against the sandbox: a signed
 * inbound request becomes a platform chat message, and the agent's reply
 * reaches the customer's server as a Standard Webhooks delivery that the
 * official library verifies.
 */
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../../support/wait.ts';
import { startTestGateway, type TestGateway } from '../../support/gateway.ts';
import { INBOUND_SECRET, OUTBOUND_SECRET } from './fixtures.ts';
import { startReceiver, type Receiver } from './receiver.ts';

let receiver: Receiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

function signed(body: unknown, id = `msg_${Math.random().toString(36).slice(2)}`) {
  const raw = JSON.stringify(body);
  const at = new Date();
  const signature = new Webhook(INBOUND_SECRET).sign(id, at, raw);
  return { raw, headers: { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signature } };
}

async function sendMessages(tg: TestGateway, body: unknown) {
  const { raw, headers } = signed(body);
  return tg.call('POST', '/connectors/helpdesk/messages', raw, headers);
}

describe('webhook connector, end to end', () => {
  it('signed message in → chat in the platform; agent reply → verified Standard Webhooks delivery out', async () => {
    receiver = await startReceiver(OUTBOUND_SECRET, () => ({ status: 200 }));
    const tg = await startTestGateway({
      connectors: [{ name: 'helpdesk', type: 'webhook', inbound_secret: INBOUND_SECRET, outbound_url: receiver.url, outbound_secret: OUTBOUND_SECRET }],
    });
    const res = await sendMessages(tg, {
      thread_id: 'case-7',
      messages: [{ message_id: 'in-1', sender_id: 'ann@example.com', sender_name: 'Ann', body: 'The printer is on fire' }],
    });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ accepted: 1, duplicates: 0, thread_id: 'helpdesk:case-7' });

    const thread = async () => (await tg.gateway.store.read.threads.byKey('helpdesk', 'case-7'));
    await until(async () => (await thread())?.chatId != null, 5_000, 'the chat');
    const chatId = (await thread())!.chatId!;
    const messages = (await tg.sandbox.call('GET', `/_sandbox/chats/${chatId}/messages`)).body.results as { type: string; message: string }[];
    expect(messages.filter((m) => m.type === 'msg').map((m) => m.message)).toEqual(['The printer is on fire']);

    await tg.sandbox.call('POST', `/_sandbox/chats/${chatId}/agent_messages`, { text: 'Step away from the printer' });
    await until(async () => receiver!.requests.length === 1, 5_000, 'the outbound delivery');
    const [delivery] = receiver.requests;
    expect(delivery!.verified.ok).toBe(true);
    // Verified again here with the library, from the raw bytes and headers as received.
    const payload = new Webhook(OUTBOUND_SECRET).verify(delivery!.body, delivery!.headers as Record<string, string>) as Record<string, unknown>;
    expect(payload).toMatchObject({
      type: 'message_created',
      thread_id: 'helpdesk:case-7',
      chat_id: chatId,
      connector: 'helpdesk',
      message: expect.objectContaining({ message: 'Step away from the printer' }),
    });
    await until(async () => (await tg.gateway.store.read.deliveries.countByStatus('helpdesk')).delivered === 1, 5_000, 'delivered');
  });

  it('the same batch sent twice is accepted once; an unsigned request is refused with 401', async () => {
    const tg = await startTestGateway({ connectors: [{ name: 'helpdesk', type: 'webhook', inbound_secret: INBOUND_SECRET }] });
    const body = { thread_id: 'case-8', messages: [{ message_id: 'dup-1', sender_id: 'bob@example.com', body: 'hello' }] };
    expect((await sendMessages(tg, body)).body).toMatchObject({ accepted: 1, duplicates: 0 });
    expect((await sendMessages(tg, body)).body).toMatchObject({ accepted: 0, duplicates: 1 });
    const unsigned = await tg.call('POST', '/connectors/helpdesk/messages', body);
    expect(unsigned.status).toBe(401);
    expect(unsigned.body.code).toBe('TG_SIGNATURE_INVALID');
  });
});
