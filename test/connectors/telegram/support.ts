/**
 * What the Telegram connector's tests share: a Telegram counterpart
 * (test/support/telegram/) closed after the test, the connector's settings
 * pointing at it, a real gateway (the author kit's, with its embedded
 * sandbox as the platform) whose one connector, `tg`, talks to it, and
 * readers of what the platform and the gateway's store hold.
 */
import { onTestFinished } from 'vitest';
import { startTestGateway, type TestGateway } from '../../../src/connector/testing/index.ts';
import { startTelegram, type TelegramOptions, type TestTelegram } from '../../support/telegram/telegram.ts';
import { until } from '../../support/wait.ts';

export const CONNECTOR = 'tg';
/** A long poll answers at the first update; then the store, then the platform POST. */
export const ARRIVES_MS = 15_000;

/** A counterpart for this test, closed after it. */
export async function telegram(options: TelegramOptions = {}): Promise<TestTelegram> {
  const tg = await startTelegram(options);
  onTestFinished(() => tg.close());
  return tg;
}

/** The connector's own keys, as the docs show them, with `api_url` at the counterpart. */
export function settingsFor(tg: TestTelegram, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { bot_token: tg.token, api_url: tg.url, poll_timeout_seconds: 10, ...extra };
}

export interface GatewayOptions {
  extra?: Record<string, unknown>;
  /** The folder of the settings and the store: a gateway started again there finds its state (a restart). */
  dir?: string;
  logs?: string[];
  /** Further top-level settings (jobs…). */
  settings?: Record<string, unknown>;
}

/** A gateway whose one connector, `tg`, talks to `tg`; stopped after the test. */
export async function gatewayFor(tg: TestTelegram, options: GatewayOptions = {}): Promise<TestGateway> {
  const gw = await startTestGateway({
    connectors: [{ name: CONNECTOR, type: 'telegram', ...settingsFor(tg, options.extra) }],
    ...(options.dir ? { dir: options.dir } : {}),
    ...(options.settings ? { settings: { jobs: { backoff_first: '50ms', backoff_max: '1s' }, ...options.settings } } : {}),
    ...(options.logs ? { onLog: (line: string) => void options.logs!.push(line) } : {}),
  });
  onTestFinished(() => gw.stop());
  return gw;
}

export async function health(gw: TestGateway): Promise<{ ok: boolean; details: Record<string, any> }> {
  return (await gw.call('GET', '/readyz')).body.connectors[CONNECTOR];
}

/** Waits until the connector polls (its first getUpdates reached the counterpart). */
export async function polling(tg: TestTelegram): Promise<void> {
  await until(() => tg.calls('getUpdates').length > 0, ARRIVES_MS, 'the first getUpdates');
}

/** The customer's messages in the chat of Telegram chat `chatId` on the platform, oldest first. */
export async function visitorTexts(gw: TestGateway, chatId: number): Promise<string[]> {
  const messages = await gw.messages(CONNECTOR, String(chatId));
  return messages.filter((m) => m.type === 'msg' && m.sender_type === 'visitor').map((m) => m.message);
}

/** Waits until the platform shows `count` customer messages in the chat of `chatId`; answers them. */
export async function arrived(gw: TestGateway, chatId: number, count: number): Promise<string[]> {
  let texts: string[] = [];
  await until(async () => (texts = await visitorTexts(gw, chatId).catch(() => [])).length >= count, ARRIVES_MS, `${count} message(s) of chat ${chatId} on the platform`);
  return texts;
}

/** The delivery log's rows of the connector, oldest first. */
export async function deliveries(gw: TestGateway): Promise<{ id: number; status: string; error: string | null; external_id: string | null }[]> {
  return gw.gateway.store.read.sql.all(`select id, status, error, external_id from deliveries where connector = ? order by id`, [CONNECTOR]);
}

/** The inbound messages the connector recorded as skipped, oldest first. */
export async function skipped(gw: TestGateway): Promise<{ code: string; reason: string }[]> {
  return (await gw.gateway.store.read.skipped.list(CONNECTOR)) as { code: string; reason: string }[];
}
