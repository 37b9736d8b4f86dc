/**
 * Agents' attachments end to end over real HTTP: an agent answers in the
 * sandbox with a file and an image, the signed webhook reaches the gateway,
 * and the connector's deliver downloads both through ctx.attachments (the
 * gateway allows the platform's own host, the sandbox's address here) with
 * the exact bytes. Guards the wiring in src/cli/gateway.ts and
 * src/bridge/connector-context.ts.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { fetched } from '../fixtures/connectors/recorder.ts';
import { RECORDER_MODULE, startTestGateway } from '../support/gateway.ts';
import { until } from '../support/wait.ts';

const PDF = Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(5000)]);
const GIF = Buffer.from('R0lGODlhAQABAAAAACw=', 'base64');

describe('agent attachments reach the connector', () => {
  it('deliver downloads a file and an image of an agent message with their names, types and bytes', async () => {
    const tg = await startTestGateway({ connectors: [{ name: 'att', type: 'recorder', module: RECORDER_MODULE, fetch_attachments: true }] });
    await tg.call('POST', '/connectors/att/submit', { threadKey: 'A-1', messageId: 'a-1', senderId: 'ann@example.com', body: 'Send the invoice' });
    let chatId: string | null = null;
    await until(async () => (chatId = (await tg.call('GET', '/connectors/att/threads/A-1')).body?.chatId ?? null) !== null, 5_000, 'the chat');

    const posted = await tg.sandbox.call('POST', `/_sandbox/chats/${chatId}/agent_messages`, {
      text: 'Here it is',
      attachments: [
        { type: 'file', name: 'invoice.pdf', content_type: 'application/pdf', content_base64: PDF.toString('base64') },
        { type: 'image', content_type: 'image/gif', content_base64: GIF.toString('base64') },
      ],
    });
    expect(posted.status).toBe(201);
    await until(() => fetched.some((f) => f.messageId === posted.body.id), 5_000, 'the delivery with its attachments');
    const { files } = fetched.find((f) => f.messageId === posted.body.id)!;
    expect(files).toEqual([
      { filename: 'invoice.pdf', contentType: 'application/pdf', content: PDF },
      { filename: 'image.gif', contentType: 'image/gif', content: GIF },
    ]);
  });
});
