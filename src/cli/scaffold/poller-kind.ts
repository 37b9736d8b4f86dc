/**
 * The module and test `connector new --kind poller` writes: `poll` reads a
 * JSON feed of new messages after a cursor kept in the connector's state,
 * submits each round's messages with the new cursor in one commit, and waits;
 * `deliver` POSTs each agent reply to the system's URL.
 */
import type { Names } from './names.ts';

export function pollerModule({ type, pascal }: Names): string {
  return `/**
 * The ${type} connector: it reads ${type}'s feed of new messages
 * (GET feed_url?after=<cursor> → { messages: [...], cursor }) every
 * poll_seconds, on one replica at a time, and POSTs every agent reply to
 * reply_url as JSON.
 */
import { z } from 'zod';
import { defineConnector, deliveryErrorFor, sleep } from 'threadgate/connector';

const Settings = z.strictObject({
  feed_url: z.url({ protocol: /^https?$/ }),
  reply_url: z.url({ protocol: /^https?$/ }),
  /** Sent as \`Authorization: Bearer <api_token>\` to both. */
  api_token: z.string().min(1),
  poll_seconds: z.number().min(0.05).max(3_600).default(10),
  timeout_ms: z.number().int().min(100).max(60_000).default(10_000),
});

const Feed = z.object({
  messages: z.array(z.object({ id: z.string().min(1), conversation_id: z.string().min(1), from: z.string().min(1), text: z.string() })),
  cursor: z.string().nullable(),
});

const CURSOR = 'cursor';

export default defineConnector({
  type: '${type}',
  configSchema: Settings,

  create(config, ctx) {
    const auth = { authorization: \`Bearer \${config.api_token}\` };
    const host = (url: string) => \`${type} at \${new URL(url).host}\`;
    let lastError: string | null = null;
    let rounds = 0;

    /** One round: the messages after the cursor, stored with the new cursor in one commit. */
    async function round(signal: AbortSignal): Promise<void> {
      const cursor = await ctx.state.get<string>(CURSOR);
      const url = new URL(config.feed_url);
      if (cursor !== undefined) url.searchParams.set('after', cursor);
      const res = await fetch(url, { headers: auth, redirect: 'manual', signal: AbortSignal.any([signal, AbortSignal.timeout(config.timeout_ms)]) });
      const text = await res.text();
      const error = deliveryErrorFor(res, { what: host(config.feed_url), text });
      if (error) throw error;
      const feed = Feed.parse(JSON.parse(text));
      const messages = feed.messages.filter((m) => m.text.trim() !== '');
      const state = feed.cursor === null ? {} : { [CURSOR]: feed.cursor };
      if (messages.length > 0) {
        await ctx.submitAll(messages.map((m, i) => ({
          message: { threadKey: m.conversation_id, messageId: m.id, senderId: m.from, body: m.text },
          ...(i === messages.length - 1 ? { state } : {}),
        })));
      } else if (feed.cursor !== null) await ctx.state.set(CURSOR, feed.cursor);
    }

    return {
      start() {},
      async poll({ signal }) {
        while (!signal.aborted) {
          try {
            await round(signal);
            rounds += 1;
            lastError = null;
          } catch (err) {
            if (signal.aborted) break;
            lastError = (err as Error).message;
            ctx.logger.warn({ err: { message: lastError } }, 'reading the feed failed; trying again after the pause');
          }
          await sleep(config.poll_seconds * 1_000, signal);
        }
      },
      stop() {},
      async deliver(event, thread, { signal }) {
        if (event.event_type !== 'message_created') return { skipped: '${type} takes no reply suggestions' };
        const res = await fetch(config.reply_url, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({ conversation_id: thread?.key ?? null, reply_id: event.message.id, text: event.message.message }),
          redirect: 'manual',
          signal: AbortSignal.any([signal, AbortSignal.timeout(config.timeout_ms)]),
        });
        const error = deliveryErrorFor(res, { what: host(config.reply_url), text: await res.text() });
        if (error) throw error;
        return { externalId: event.message.id };
      },
      health: () => ({ ok: lastError === null, details: { rounds, last_error: lastError } }),
    };
  },
});

/** The settings type, for tests. */
export type ${pascal}Settings = z.input<typeof Settings>;
`;
}

export function pollerTest({ type, camel, pascal }: Names): string {
  return `/**
 * The ${type} connector's tests: the contract every connector must pass, and
 * the whole round trip through a real gateway with its embedded sandbox
 * (threadgate/testing), against a stand-in for ${type} on port 0.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { connectorContract, startTestGateway, type TestGateway } from 'threadgate/testing';
import ${camel} from './${type}.ts';
import type { ${pascal}Settings } from './${type}.ts';

let server: Server | undefined;
let gateway: TestGateway | undefined;
afterEach(async () => {
  await gateway?.stop();
  await new Promise((done) => (server ? server.close(done) : done(undefined)));
  server = gateway = undefined;
});

/** A stand-in for ${type}: a feed with one message, and every reply it gets. */
async function standIn(): Promise<{ base: string; replies: unknown[] }> {
  const replies: unknown[] = [];
  server = createServer((req, res) => {
    if (req.method === 'GET') {
      const after = new URL(req.url ?? '/', 'http://x').searchParams.get('after');
      const messages = after === null ? [{ id: 'm-1', conversation_id: 'c-1', from: 'ann@example.com', text: 'Where is my order?' }] : [];
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ messages, cursor: '1' }));
      return;
    }
    let body = '';
    req.on('data', (chunk) => (body += chunk)).on('end', () => {
      replies.push(JSON.parse(body));
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((done) => server!.listen(0, '127.0.0.1', done));
  return { base: \`http://127.0.0.1:\${(server.address() as AddressInfo).port}\`, replies };
}

const settings = (base: string): ${pascal}Settings => ({ feed_url: \`\${base}/feed\`, reply_url: \`\${base}/replies\`, api_token: 'a-test-token-of-${type}', poll_seconds: 0.1 });

describe('${type}', () => {
  for (const check of connectorContract(${camel}, { settings: settings('http://127.0.0.1:9') })) it(check.name, check.run);

  it('makes the round trip: the feed\\'s message becomes a chat, the agent answer reaches ${type}', async () => {
    const target = await standIn();
    gateway = await startTestGateway({ connectors: [{ name: '${type}', type: '${type}', module: new URL('./${type}.ts', import.meta.url).pathname, ...settings(target.base) }] });
    await gateway.chatOf('${type}', 'c-1');
    await gateway.agentReply('${type}', 'c-1', 'On its way');
    await gateway.waitForDelivery('${type}');
    expect(target.replies).toEqual([expect.objectContaining({ conversation_id: 'c-1', text: 'On its way' })]);
  });
});
`;
}
