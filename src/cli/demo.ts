/**
 * The demo of `npm start` with no settings: a `demo` webhook connector that
 * takes unsigned messages (loopback only, for trying things out) against the
 * embedded sandbox, and the two steps that show a message make the round trip.
 */
import type { ConnectorEntry } from '../config/schema.ts';
import type { Logger } from '../log/logger.ts';
import type { RunningSandbox } from '../sandbox/index.ts';

export const DEMO_CONNECTOR: ConnectorEntry = Object.freeze({
  name: 'demo',
  type: 'webhook',
  allow_unsigned: true,
});

export const DEMO_THREAD = 'order-42';

interface DemoCommands {
  customer: string;
  findChat: string;
  agent: string;
}

function demoCommands(gatewayUrl: string, sandbox: RunningSandbox): DemoCommands {
  const message = { thread_id: DEMO_THREAD, messages: [{ message_id: 'm1', sender_id: 'ann@example.com', sender_name: 'Ann', body: 'Where is my order?' }] };
  return {
    customer: `curl -s -XPOST ${gatewayUrl}/connectors/demo/messages -H 'content-type: application/json' -d '${JSON.stringify(message)}'`,
    findChat:
      `CHAT=$(curl -s '${sandbox.url}/_sandbox/chats?thread_id=demo:${DEMO_THREAD}' | ` +
      `node -pe 'JSON.parse(require("fs").readFileSync(0)).results[0].chat.id')`,
    agent: `curl -s -XPOST ${sandbox.url}/_sandbox/chats/$CHAT/agent_messages -H 'content-type: application/json' -d '{"text":"It ships today."}'`,
  };
}

const AFTER = 'the reply comes back through the signed webhook and the gateway logs "agent reply" and "delivered".';

/** The two steps as one line each, for the JSON log line (machines). */
export function demoSteps(gatewayUrl: string, sandbox: RunningSandbox): string[] {
  const c = demoCommands(gatewayUrl, sandbox);
  return [`1. A customer writes: ${c.customer}`, `2. An agent answers in that chat: ${c.findChat}; ${c.agent} — ${AFTER}`];
}

/** The two steps for people at a terminal: each command alone on its lines, to copy and paste as is. */
export function demoText(gatewayUrl: string, sandbox: RunningSandbox): string {
  const c = demoCommands(gatewayUrl, sandbox);
  return [
    'Try the round trip (the embedded sandbox plays the platform):',
    '',
    '1. A customer writes:',
    '',
    `   ${c.customer}`,
    '',
    '2. An agent answers in that chat:',
    '',
    `   ${c.findChat}`,
    `   ${c.agent}`,
    '',
    `   Then ${AFTER}`,
    '',
  ].join('\n');
}

/**
 * The JSON log line (for machines), then the plain text, whatever stdout is: a
 * terminal, a file (`npm start > log`), a pipe (a container's or a service
 * manager's log). Inside the JSON line the commands' quotes are escaped; the
 * plain lines paste into a shell as they are, from a log file too.
 */
export function logDemoSteps(logger: Logger, gatewayUrl: string, sandbox: RunningSandbox, out: { write(text: string): unknown } = process.stdout): void {
  logger.info({ event: 'demo', sandbox_url: sandbox.url, steps: demoSteps(gatewayUrl, sandbox) }, 'demo: try the round trip');
  out.write(`\n${demoText(gatewayUrl, sandbox)}\n`);
}
