/**
 * What the WhatsApp connector's tests share: the counterpart
 * (test/support/whatsapp/), closed after the test; a real gateway (against
 * the sandbox as the platform, on the run's store backend) whose `whatsapp`
 * connector is pointed at it, with the callback URL verified and subscribed
 * as Meta does it; and readers of what the platform and the delivery log hold.
 */
import { onTestFinished } from 'vitest';
import { chatTexts, startTestGateway, type TestGateway } from '../../support/gateway.ts';
import { until } from '../../support/wait.ts';
import { startWhatsApp, type TestWhatsApp, type WhatsAppOptions } from '../../support/whatsapp/whatsapp.ts';

export const CONNECTOR = 'whatsapp';
/** A notification, its submit and the platform POST. */
export const ARRIVES_MS = 10_000;
export const ANN = '4915112345678';
const ADMIN_TOKEN = 'whatsapp-tests-admin-token-0123456789';

/** A counterpart for this test, closed after it. */
export async function whatsapp(options: WhatsAppOptions = {}): Promise<TestWhatsApp> {
  const wa = await startWhatsApp(options);
  onTestFinished(() => wa.close());
  return wa;
}

/** The settings entry as the docs show it (api_url pointing at the counterpart). */
export const connectorEntry = (wa: TestWhatsApp, extra: Record<string, unknown> = {}) => ({ name: CONNECTOR, type: 'whatsapp', ...wa.settings(extra) });

export const callbackUrl = (tg: TestGateway) => `${tg.gateway.url}/connectors/${CONNECTOR}/webhook`;

/** A gateway with the connector, its callback URL subscribed at the counterpart; `after` reuses a stopped one's sandbox and store. */
export async function waGateway(wa: TestWhatsApp, options: { extra?: Record<string, unknown>; after?: TestGateway; subscribe?: boolean } = {}): Promise<TestGateway> {
  const tg = await startTestGateway({
    connectors: [connectorEntry(wa, options.extra)],
    settings: { server: { admin_token: ADMIN_TOKEN } },
    ...(options.after ? { sandbox: options.after.sandbox, dir: options.after.dir } : {}),
  });
  // Before the gateway closes (hooks run last-registered first): a notification arriving while it closes keeps
  // its HTTP server waiting for that keep-alive connection (about 70 s).
  onTestFinished(() => wa.idle());
  if (options.subscribe !== false) await wa.subscribe(callbackUrl(tg));
  return tg;
}

/** The customer's chat on the platform, once their first message is posted. */
export async function chatOf(tg: TestGateway, waId: string): Promise<string> {
  await until(async () => (await tg.gateway.store.read.threads.byKey(CONNECTOR, waId))?.chatId != null, ARRIVES_MS, `a chat for ${waId}`);
  return (await tg.gateway.store.read.threads.byKey(CONNECTOR, waId))!.chatId!;
}

/** The customer's messages as the platform shows them, once there are `count`. */
export async function customerTexts(tg: TestGateway, waId: string, count: number): Promise<string[]> {
  const chatId = await chatOf(tg, waId);
  await until(async () => (await chatTexts(tg, chatId)).length >= count, ARRIVES_MS, `${count} message(s) of ${waId} on the platform`);
  return chatTexts(tg, chatId);
}

/** An agent answers in the customer's chat. */
export async function agentSays(tg: TestGateway, waId: string, text: string, attachments?: unknown[]): Promise<void> {
  const res = await tg.sandbox.call('POST', `/_sandbox/chats/${await chatOf(tg, waId)}/agent_messages`, { text, ...(attachments ? { attachments } : {}) });
  if (res.status >= 300) throw new Error(`agent_messages answered ${res.status}: ${res.text}`);
}

export interface DeliveryRow {
  id: number;
  status: string;
  error: string | null;
  external_id: string | null;
}

/** The connector's deliveries, oldest first. */
export async function deliveries(tg: TestGateway): Promise<DeliveryRow[]> {
  return tg.gateway.store.read.sql.all<DeliveryRow>(`select id, status, error, external_id from deliveries where connector = ? order by id`, [CONNECTOR]);
}

/** Waits until the connector has `count` deliveries in one of `statuses`; answers them all. */
export async function settled(tg: TestGateway, count: number, statuses: readonly string[] = ['delivered', 'skipped', 'dead']): Promise<DeliveryRow[]> {
  await until(async () => (await deliveries(tg)).filter((d) => statuses.includes(d.status)).length >= count, ARRIVES_MS, `${count} delivery(ies) ${statuses.join('/')}`);
  return deliveries(tg);
}

/** The admin API, as an operator reads and acts on the delivery log. */
export async function admin(tg: TestGateway, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await tg.call(method, `/admin/api${path}`, body, { authorization: `Bearer ${ADMIN_TOKEN}` });
  return { status: res.status, body: res.body };
}

export async function health(tg: TestGateway): Promise<{ ok: boolean; details: Record<string, any> }> {
  return (await tg.call('GET', '/readyz')).body.connectors[CONNECTOR];
}
