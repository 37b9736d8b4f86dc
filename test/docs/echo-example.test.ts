/**
 * docs/connectors.md's complete example is real: the file it shows verbatim
 * runs in a gateway, posts to the platform, and receives the agent's reply.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { until } from '../support/wait.ts';
import { startTestGateway } from '../support/gateway.ts';

const ROOT = join(import.meta.dirname, '../..');
const EXAMPLE = join(ROOT, 'docs/examples/echo-connector.ts');

describe('the connector guide example', () => {
  it('is shown verbatim in docs/connectors.md', async () => {
    expect(readFileSync(join(ROOT, 'docs/connectors.md'), 'utf8')).toContain(readFileSync(EXAMPLE, 'utf8').trim());
  });

  it('runs: /say reaches the platform and the agent reply lands in its state', async () => {
    const tg = await startTestGateway({ connectors: [{ name: 'echo', type: 'echo', module: EXAMPLE }] });
    const res = await tg.call('POST', '/connectors/echo/say', { thread: 't-1', text: 'Hello' });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ thread_id: 'echo:t-1' });
    await until(async () => (await tg.gateway.store.read.threads.byKey('echo', 't-1'))?.chatId != null, 5_000, 'the chat');
    const chatId = (await tg.gateway.store.read.threads.byKey('echo', 't-1'))!.chatId!;
    await tg.sandbox.call('POST', `/_sandbox/chats/${chatId}/agent_messages`, { text: 'Hi back' });
    await until(async () => (await tg.gateway.store.read.state.get('echo', 'last_reply')) !== undefined, 5_000, 'the reply in state');
    expect((await tg.gateway.store.read.state.get('echo', 'last_reply'))).toEqual({ thread_id: 'echo:t-1', event_type: 'message_created', text: 'Hi back' });
  });
});
