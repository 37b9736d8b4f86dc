/**
 * A Slack workspace and a gateway for the Slack connector's tests: the
 * counterpart (test/support/slack/) with Slack's event retries shortened to
 * 300 ms, 600 ms and 900 ms (Slack: at once, a minute, five minutes), and a
 * real gateway (against the sandbox as the platform) whose `slack` connector
 * is its Request URL, subscribed as Slack subscribes (url_verification);
 * plus readers of what the platform (the sandbox) and the gateway's store
 * hold. Everything is closed after the test.
 */
import { onTestFinished } from 'vitest';
import { chatTexts, startTestGateway, type TestGateway } from '../../support/gateway.ts';
import { startSlack, type SlackOptions, type TestSlack } from '../../support/slack/slack.ts';
import { until } from '../../support/wait.ts';

export const CONNECTOR = 'slack';
/** A message's way: the event, a commit, the platform POST (a second for the job poll and the sandbox). */
export const ARRIVES_MS = 15_000;

export async function slack(options: SlackOptions = {}): Promise<TestSlack> {
  const started = await startSlack({ retryDelaysMs: [300, 600, 900], ...options });
  onTestFinished(() => started.close());
  return started;
}

/** The settings entry as docs/chat-apps/slack.md shows it, with the counterpart's address as api_url. */
export function connectorEntry(s: TestSlack, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { name: CONNECTOR, type: 'slack', bot_token: s.bot.token, signing_secret: s.signingSecret, channel: s.support.id, api_url: s.url, catch_up_seconds: 0, ...extra };
}

export interface GatewayOptions {
  extra?: Record<string, unknown>;
  /** A stopped gateway whose sandbox and folder (its store file) this one takes over: a restart. */
  after?: TestGateway;
  logLines?: string[];
}

/** A gateway with the Slack connector, subscribed as the workspace's Request URL, once the connector knows its bot user. */
export async function gatewayFor(s: TestSlack, options: GatewayOptions = {}): Promise<TestGateway> {
  const tg = await startTestGateway({
    connectors: [connectorEntry(s, options.extra)],
    ...(options.after ? { sandbox: options.after.sandbox, dir: options.after.dir } : {}),
    ...(options.logLines ? { logLines: options.logLines } : {}),
  });
  await s.subscribe(`${tg.gateway.url}/connectors/${CONNECTOR}/events`);
  await until(async () => (await health(tg)).details.bot_user_id === s.bot.id, ARRIVES_MS, 'the connector’s auth.test');
  return tg;
}

export async function health(tg: TestGateway): Promise<{ ok: boolean; details: Record<string, any> }> {
  return (await tg.call('GET', '/readyz')).body.connectors[CONNECTOR];
}

/** The platform chat of the Slack thread `<channel>/<rootTs>`, once its first message was posted. */
export async function chatOf(tg: TestGateway, channel: string, rootTs: string): Promise<string> {
  const key = `${channel}/${rootTs}`;
  await until(async () => (await tg.gateway.store.read.threads.byKey(CONNECTOR, key))?.chatId != null, ARRIVES_MS, `a chat for ${key}`);
  return (await tg.gateway.store.read.threads.byKey(CONNECTOR, key))!.chatId!;
}

/** Waits until the chat holds `n` customer messages; answers them. */
export async function textsWhen(tg: TestGateway, chatId: string, n: number): Promise<string[]> {
  await until(async () => (await chatTexts(tg, chatId)).length >= n, ARRIVES_MS, `${n} message(s) in the chat`);
  return chatTexts(tg, chatId);
}

export async function deliveries(tg: TestGateway): Promise<Record<string, number>> {
  return tg.gateway.store.read.deliveries.countByStatus(CONNECTOR) as Promise<Record<string, number>>;
}

/** Every delivery row of the connector, oldest first. */
export async function deliveryRows(tg: TestGateway): Promise<{ status: string; error: string | null; external_id: string | null }[]> {
  return tg.gateway.store.read.sql.all(`select status, error, external_id from deliveries where connector = ? order by id`, [CONNECTOR]);
}

/** An agent answers in the chat, as the sandbox lets a test do (`files` as the sandbox takes them). */
export async function agentReplies(tg: TestGateway, chatId: string, text: string, files: { name: string; contentType: string; content: Buffer }[] = []): Promise<void> {
  const attachments = files.map((f) => ({ type: 'file', name: f.name, content_type: f.contentType, content_base64: f.content.toString('base64') }));
  const answer = await tg.sandbox.call('POST', `/_sandbox/chats/${chatId}/agent_messages`, { text, ...(attachments.length ? { attachments } : {}) });
  if (answer.status >= 300) throw new Error(`the sandbox refused the agent's message: ${answer.status} ${answer.text}`);
}
