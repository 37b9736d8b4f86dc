/**
 * The module and test `connector new --kind webhook` writes: an HTTP route
 * that checks an HMAC signature and submits a customer's message, and a
 * `deliver` that POSTs each agent reply to the system's URL, turning its
 * answer into the right delivery error.
 */
import type { Names } from './names.ts';

export function webhookModule({ type, pascal }: Names): string {
  return `/**
 * The ${type} connector: ${type} POSTs a customer's message to
 * /connectors/<name>/messages, signed with an HMAC-SHA256 of the body
 * (header x-${type}-signature: sha256=<hex>); every agent reply is POSTed to
 * reply_url as JSON.
 */
import { z } from 'zod';
import { defineConnector, deliveryErrorFor, RouteError, verifyHmacSignature } from 'threadgate/connector';

const Settings = z.strictObject({
  /** The secret ${type} signs its requests with. */
  inbound_secret: z.string().min(16),
  /** Where agent replies go. */
  reply_url: z.url({ protocol: /^https?$/ }),
  timeout_ms: z.number().int().min(100).max(60_000).default(10_000),
});

const Message = z.strictObject({
  conversation_id: z.string().min(1).max(400),
  message_id: z.string().min(1).max(400),
  from: z.string().min(1).max(400),
  name: z.string().max(200).optional(),
  text: z.string().trim().min(1),
});

export default defineConnector({
  type: '${type}',
  configSchema: Settings,

  create(config, ctx) {
    ctx.routes.add('POST', '/messages', async (request) => {
      const verdict = verifyHmacSignature({
        secret: config.inbound_secret,
        payload: request.rawBody,
        signature: request.headers['x-${type}-signature'],
        prefix: 'sha256=',
      });
      if (!verdict.ok) throw new RouteError(401, 'TG_SIGNATURE_INVALID', \`signature check failed: \${verdict.message}\`);
      let json: unknown;
      try {
        json = JSON.parse(request.rawBody.toString('utf8'));
      } catch {
        throw new RouteError(400, 'TG_REQUEST_INVALID', 'the body is not JSON');
      }
      const message = Message.safeParse(json);
      if (!message.success) {
        const errors = message.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message }));
        throw new RouteError(400, 'TG_REQUEST_INVALID', 'the message is not valid', errors);
      }
      const m = message.data;
      // Resolves once the message is stored durably: only now may ${type} be told it arrived.
      const result = await ctx.submit({ threadKey: m.conversation_id, messageId: m.message_id, senderId: m.from, ...(m.name ? { senderName: m.name } : {}), body: m.text });
      return { status: 202, body: { thread_id: result.threadId, duplicate: result.duplicate } };
    });

    const outbound = new AbortController();
    return {
      start() {},
      stop() {
        outbound.abort(new Error('the connector is stopping'));
      },
      async deliver(event, thread, { signal }) {
        if (event.event_type !== 'message_created') return { skipped: '${type} takes no reply suggestions' };
        const body = JSON.stringify({
          conversation_id: thread?.key ?? null,
          reply_id: event.message.id, // the same on every retry: ${type} can drop a repeat
          agent: event.message.sender_public_name ?? event.message.sender_name,
          text: event.message.message,
        });
        const res = await fetch(config.reply_url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
          redirect: 'manual',
          signal: AbortSignal.any([signal, outbound.signal, AbortSignal.timeout(config.timeout_ms)]),
        });
        const error = deliveryErrorFor(res, { what: \`${type} at \${new URL(config.reply_url).host}\`, text: await res.text() });
        if (error) throw error;
        return { externalId: event.message.id };
      },
      health: () => ({ ok: true, details: { reply_host: new URL(config.reply_url).host } }),
    };
  },
});

/** The settings type, for tests. */
export type ${pascal}Settings = z.input<typeof Settings>;
`;
}

export function webhookTest({ type, camel, pascal }: Names): string {
  return `/**
 * The ${type} connector's tests: the contract every connector must pass, its
 * route on a recording context, and the whole round trip through a real
 * gateway with its embedded sandbox (threadgate/testing).
 */
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { connectorContract, recordingContext, startTestGateway, type TestGateway } from 'threadgate/testing';
import ${camel} from './${type}.ts';
import type { ${pascal}Settings } from './${type}.ts';

const SECRET = 'a-test-secret-of-${type}';
const sign = (body: string) => \`sha256=\${createHmac('sha256', SECRET).update(body).digest('hex')}\`;

let server: Server | undefined;
let gateway: TestGateway | undefined;
afterEach(async () => {
  await gateway?.stop();
  await new Promise((done) => (server ? server.close(done) : done(undefined)));
  server = gateway = undefined;
});

/** A stand-in for ${type}'s side: every reply it gets, answered with \`status\`. */
async function replies(status = 200): Promise<{ url: string; got: unknown[] }> {
  const got: unknown[] = [];
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk)).on('end', () => {
      got.push(JSON.parse(body));
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((done) => server!.listen(0, '127.0.0.1', done));
  return { url: \`http://127.0.0.1:\${(server.address() as AddressInfo).port}/replies\`, got };
}

const settings = (reply_url: string): ${pascal}Settings => ({ inbound_secret: SECRET, reply_url });

describe('${type}', () => {
  for (const check of connectorContract(${camel}, { settings: settings('http://127.0.0.1:9/replies') })) it(check.name, check.run);

  it('submits a signed message, and refuses an unsigned one', async () => {
    const ctx = recordingContext({ name: '${type}' });
    await ${camel}.create(${camel}.configSchema.parse(settings('http://127.0.0.1:9/replies')), ctx);
    const body = JSON.stringify({ conversation_id: 'c-1', message_id: 'm-1', from: 'ann@example.com', text: 'Where is my order?' });
    expect(await ctx.request('POST', '/messages', { body, headers: { 'x-${type}-signature': sign(body) } })).toMatchObject({ status: 202 });
    expect(ctx.submits).toEqual([expect.objectContaining({ threadKey: 'c-1', body: 'Where is my order?' })]);
    expect((await ctx.request('POST', '/messages', { body })).status).toBe(401);
  });

  it('makes the round trip: a message becomes a chat, the agent answer reaches ${type}', async () => {
    const target = await replies();
    gateway = await startTestGateway({ connectors: [{ name: '${type}', type: '${type}', module: new URL('./${type}.ts', import.meta.url).pathname, ...settings(target.url) }] });
    const body = JSON.stringify({ conversation_id: 'c-2', message_id: 'm-2', from: 'ann@example.com', text: 'Hello' });
    expect((await gateway.request('${type}', 'POST', '/messages', { body, headers: { 'x-${type}-signature': sign(body) } })).status).toBe(202);
    await gateway.agentReply('${type}', 'c-2', 'On its way');
    await gateway.waitForDelivery('${type}');
    expect(target.got).toEqual([expect.objectContaining({ conversation_id: 'c-2', text: 'On its way' })]);
  });
});
`;
}
