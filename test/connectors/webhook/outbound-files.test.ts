/**
 * An agent's files in the webhook connector's outbound payload, end to end:
 * the receiving system gets each as a link of the gateway's own (signed,
 * expiring) that downloads the very bytes the agent sent — no platform
 * address, no platform credentials needed.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestGateway } from '../../support/gateway.ts';
import { until } from '../../support/wait.ts';
import { OUTBOUND_SECRET } from './fixtures.ts';
import { startReceiver, type Receiver } from './receiver.ts';

let receiver: Receiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

describe('webhook connector, agent files', () => {
  it('go out as gateway links that download the bytes', async () => {
    receiver = await startReceiver(OUTBOUND_SECRET, () => ({ status: 200 }));
    const tg = await startTestGateway({ connectors: [{ name: 'helpdesk', type: 'webhook', allow_unsigned: true, outbound_url: receiver.url, outbound_secret: OUTBOUND_SECRET }] });
    const sent = await tg.call('POST', '/connectors/helpdesk/messages', { thread_id: 'case-f', messages: [{ message_id: 'f-1', sender_id: 'ann@example.com', body: 'The manual?' }] });
    expect(sent.status).toBe(202);
    const thread = async () => tg.gateway.store.read.threads.byKey('helpdesk', 'case-f');
    await until(async () => (await thread())?.chatId != null, 5_000, 'the chat');

    const manual = Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(12_000), Buffer.from([0])]);
    const posted = await tg.sandbox.call('POST', `/_sandbox/chats/${(await thread())!.chatId}/agent_messages`, {
      text: 'Attached.',
      attachments: [{ type: 'file', name: 'manual.pdf', content_type: 'application/pdf', content_base64: manual.toString('base64') }],
    });
    expect(posted.status).toBe(201);
    await until(async () => receiver!.requests.length === 1, 10_000, 'the delivery');

    const payload = receiver.requests[0]!.verified as { ok: true; payload: { message: { attachments: Record<string, unknown>[] } } };
    expect(payload.ok).toBe(true);
    const [file] = payload.payload.message.attachments;
    expect(file).toMatchObject({ type: 'file', name: 'manual.pdf', size: manual.length, content_type: 'application/pdf' });
    expect(String(file!.url).startsWith(`${tg.gateway.url}/files/`)).toBe(true);
    const download = await fetch(String(file!.url));
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).equals(manual)).toBe(true);
  });
});
