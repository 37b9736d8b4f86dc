/**
 * The author kit's in-process gateway (`threadgate/testing`): the docs'
 * example connector, loaded from its file as `serve` loads it, makes the
 * round trip through a real gateway and its embedded sandbox; an agent's
 * files reach `deliver`; stop releases the port.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startTestGateway } from '../../../src/connector/testing/index.ts';
import { fetched } from '../../fixtures/connectors/recorder.ts';
import { RECORDER_MODULE } from '../../support/gateway.ts';

const ECHO = join(import.meta.dirname, '../../../docs/examples/echo-connector.ts');

describe('startTestGateway', () => {
  it('runs a connector from its module: a message becomes a chat, an agent answer and a suggestion reach deliver', async () => {
    const gw = await startTestGateway({ connectors: [{ name: 'echo', type: 'echo', module: ECHO }] });
    try {
      const said = await gw.request('echo', 'POST', '/say', { body: { thread: 't-1', text: 'Hello there' } });
      expect(said).toMatchObject({ status: 202, body: { thread_id: 'echo:t-1' } });
      expect(await gw.chatOf('echo', 't-1')).toMatch(/^[0-9a-f-]{36}$/);
      await expect.poll(async () => (await gw.messages('echo', 't-1')).map((m) => m.message)).toContain('Hello there');

      await gw.agentReply('echo', 't-1', 'General Kenobi');
      expect(await gw.waitForDelivery('echo')).toMatchObject({ status: 'delivered', error: null });
      const state = gw.gateway.store.read.state;
      await expect.poll(async () => state.get('echo', 'last_reply')).toMatchObject({ thread_id: 'echo:t-1', event_type: 'message_created', text: 'General Kenobi' });

      await gw.suggestReply('echo', 't-1', 'Try turning it off and on');
      await expect.poll(async () => state.get('echo', 'last_reply')).toMatchObject({ event_type: 'reply_suggestion_created', text: 'Try turning it off and on' });
      expect((await gw.request('echo', 'POST', '/say', { body: 'not json' })).status).toBe(400);
    } finally {
      await gw.stop();
    }
    await expect(fetch(`${gw.url}/healthz`)).rejects.toThrow();
  });

  it("hands an agent's files to deliver, downloadable through ctx.attachments", async () => {
    const gw = await startTestGateway({ connectors: [{ name: 'files', type: 'recorder', module: RECORDER_MODULE, fetch_attachments: true }] });
    try {
      expect((await gw.request('files', 'POST', '/submit', { body: { threadKey: 'T-9', messageId: 'm-9', senderId: 'ann@example.com', body: 'Look' } })).status).toBe(202);
      await gw.agentReply('files', 'T-9', 'Here you are', { files: [{ name: 'notes.txt', content: 'line one\n', contentType: 'text/plain' }] });
      await gw.waitForDelivery('files');
      const got = fetched.filter((f) => f.connector === 'files').flatMap((f) => f.files);
      expect(got).toEqual([{ filename: 'notes.txt', contentType: expect.stringMatching(/^text\/plain/), content: Buffer.from('line one\n') }]);
    } finally {
      await gw.stop();
    }
  });

  it('says what is missing when a thread never got a chat', async () => {
    const gw = await startTestGateway({ connectors: [{ name: 'echo', type: 'echo', module: ECHO }] });
    try {
      await expect(gw.chatOf('echo', 'never', 200)).rejects.toThrow(`no chat for echo's thread "never" within 200 ms: was a message submitted?`);
    } finally {
      await gw.stop();
    }
  });
});
