/**
 * A real gateway with the admin API on (server.admin_token set) and a
 * delivery log worth looking at: per recorder connector one inbound message
 * posted to the sandbox and the agent's reply delivered back — delivered by
 * `desk`, dead at `refuser` (which refuses everything) — plus one webhook
 * with a wrong signature, stored as rejected.
 */
import { expect } from 'vitest';
import { signedHeaders } from '../../src/platform/signature.ts';
import { until } from './wait.ts';
import { messageCreatedEnvelope } from './events.ts';
import { RECORDER_MODULE, startTestGateway, type TestGateway } from './gateway.ts';

export const ADMIN_TOKEN = 'admin-token-for-tests-0123456789';
export const ADMIN_AUTH = { authorization: `Bearer ${ADMIN_TOKEN}` };
export const WAIT_MS = 8_000;

export interface PopulatedOptions {
  /** More recorder connectors (each gets a message and a reply too), e.g. `{ name: 'flaky', fail_deliveries: 1 }`. */
  extra?: Record<string, unknown>[];
  /** Extra top-level settings (server.admin_token is always set). */
  settings?: Record<string, unknown>;
}

export interface AdminGateway extends TestGateway {
  /** Calls the admin API with the token: `admin('GET', '/deliveries?status=dead')`. */
  admin(method: string, path: string, body?: unknown): ReturnType<TestGateway['call']>;
}

export async function startAdminGateway(options: PopulatedOptions = {}): Promise<AdminGateway> {
  const { server, ...settings } = options.settings ?? {};
  const extra = options.extra ?? [];
  const tg = await startTestGateway({
    connectors: [
      { name: 'desk', type: 'recorder', module: RECORDER_MODULE },
      { name: 'refuser', type: 'recorder', module: RECORDER_MODULE, permanent_failure: true },
      ...extra.map((c) => ({ type: 'recorder', module: RECORDER_MODULE, ...c })),
    ],
    settings: { ...settings, server: { ...(server as object | undefined), admin_token: ADMIN_TOKEN } },
  });
  const names = ['desk', 'refuser', ...extra.map((c) => String(c.name))];
  for (const connector of names) {
    await tg.call('POST', `/connectors/${connector}/submit`, { threadKey: 'T1', messageId: `${connector}-1`, senderId: 'a@b.c', body: `hi from ${connector}` });
    await until(async () => (await tg.gateway.store.read.threads.byKey(connector, 'T1'))?.chatId != null, WAIT_MS, `a chat for ${connector}`);
    const chatId = (await tg.gateway.store.read.threads.byKey(connector, 'T1'))!.chatId!;
    await tg.sandbox.call('POST', `/_sandbox/chats/${chatId}/agent_messages`, { text: `reply via ${connector}` });
  }
  await until(async () => (await tg.gateway.store.read.deliveries.countByStatus('desk')).delivered === 1, WAIT_MS, 'a delivered delivery');
  await until(async () => (await tg.gateway.store.read.deliveries.countByStatus('refuser')).dead === 1, WAIT_MS, 'a dead delivery');
  for (const c of extra) {
    const name = String(c.name);
    await until(async () => Object.keys((await tg.gateway.store.read.deliveries.countByStatus(name))).some((s) => s === 'delivered' || s === 'dead'), WAIT_MS, `a settled delivery at ${name}`);
  }
  const raw = JSON.stringify(messageCreatedEnvelope({ threadId: 'desk:T1' }));
  expect((await tg.call('POST', '/webhooks/desk', raw, signedHeaders('0'.repeat(64), raw))).status).toBe(401);
  return { ...tg, admin: (method, path, body) => tg.call(method, `/admin/api${path}`, body, ADMIN_AUTH) };
}
