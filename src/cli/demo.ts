/**
 * The demo of `npm start` with no settings: a `demo` webhook connector that
 * takes unsigned messages (loopback only, for trying things out) against the
 * embedded sandbox, and the two steps that show a message make the round trip.
 */
import type { ConnectorEntry } from '../config/schema.ts';
import type { Logger } from '../logger.ts';
import type { RunningSandbox } from '../sandbox/index.ts';

export const DEMO_CONNECTOR: ConnectorEntry = Object.freeze({
  name: 'demo',
  type: 'webhook',
  allow_unsigned: true,
});

export const DEMO_THREAD = 'order-42';

export function demoSteps(gatewayUrl: string, sandbox: RunningSandbox): string[] {
  const message = { thread_id: DEMO_THREAD, messages: [{ message_id: 'm1', sender_id: 'ann@example.com', sender_name: 'Ann', body: 'Where is my order?' }] };
  const findChat =
    `CHAT=$(curl -s '${sandbox.url}/_sandbox/chats?thread_id=demo:${DEMO_THREAD}' | ` +
    `node -pe 'JSON.parse(require("fs").readFileSync(0)).results[0].chat.id')`;
  return [
    `1. A customer writes: curl -s -XPOST ${gatewayUrl}/connectors/demo/messages -H 'content-type: application/json' -d '${JSON.stringify(message)}'`,
    `2. An agent answers in that chat: ${findChat}; curl -s -XPOST ${sandbox.url}/_sandbox/chats/$CHAT/agent_messages ` +
      `-H 'content-type: application/json' -d '{"text":"It ships today."}' — the reply comes back through the signed webhook ` +
      `and the gateway logs "agent reply" and "delivered".`,
  ];
}

export function logDemoSteps(logger: Logger, gatewayUrl: string, sandbox: RunningSandbox): void {
  const steps = demoSteps(gatewayUrl, sandbox);
  logger.info({ event: 'demo', sandbox_url: sandbox.url, steps }, 'demo: try the round trip');
  if (process.stdout.isTTY) process.stdout.write(`\n${steps.join('\n\n')}\n\n`);
}
