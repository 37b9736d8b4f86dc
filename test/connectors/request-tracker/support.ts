/**
 * A help desk for the Request Tracker connector's end-to-end tests: a fresh
 * queue in the run's real RT 5, and a real gateway (against the sandbox)
 * whose `request-tracker` connector polls it every second; plus readers of
 * what the platform (the sandbox) and the gateway's store hold.
 */
import { until } from '../../support/wait.ts';
import { startTestGateway, type TestGateway } from '../../support/gateway.ts';
import type { TestRequestTracker } from '../../support/request-tracker.ts';

/** A poll a second, five RT round trips (~0.2 s each) per changed ticket, then the platform POST. */
export const ARRIVES_MS = 20_000;
export const CONNECTOR = 'desk';

export interface HelpDesk {
  tg: TestGateway;
  queue: string;
}

export interface HelpDeskOptions {
  /** The RT URL the connector uses (a proxy in front of it). */
  url?: string;
  queue?: string;
  extra?: Record<string, unknown>;
  /** Reuse the sandbox and folder of a stopped gateway (a restart). */
  after?: TestGateway;
  /** Do not wait for the first poll (a connector that cannot start). */
  noWait?: boolean;
  logLines?: string[];
}

/** The settings entry exactly as docs/connectors.md shows it: url, token, queue, poll_seconds. */
export function connectorEntry(rt: TestRequestTracker, queue: string, url = rt.url, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { name: CONNECTOR, type: 'request-tracker', url, token: rt.seed.gateway_token, queue, poll_seconds: 1, ...extra };
}

export async function helpDesk(rt: TestRequestTracker, options: HelpDeskOptions = {}): Promise<HelpDesk> {
  const queue = options.queue ?? (await rt.newQueue());
  const tg = await startTestGateway({
    connectors: [connectorEntry(rt, queue, options.url, options.extra)],
    ...(options.after ? { sandbox: options.after.sandbox, dir: options.after.dir } : {}),
    ...(options.logLines ? { logLines: options.logLines } : {}),
  });
  if (!options.noWait) await until(async () => (await health(tg)).details.polls >= 1, ARRIVES_MS, 'the first poll of RT');
  return { tg, queue };
}

export async function health(tg: TestGateway): Promise<{ ok: boolean; details: Record<string, any> }> {
  return (await tg.call('GET', '/readyz')).body.connectors[CONNECTOR];
}

export interface ThreadRow {
  key: string;
  threadId: string;
  chatId: string | null;
}

/** The ticket's thread (its key names the host the connector was given: RT's, or a proxy's). */
export async function threadOf(tg: TestGateway, ticketId: number): Promise<ThreadRow | undefined> {
  const sql = `select thread_key as key, thread_id as "threadId", chat_id as "chatId" from threads where connector = ? and thread_key like ?`;
  return (await tg.gateway.store.read.sql.get(sql, [CONNECTOR, `%/ticket/${ticketId}`])) as ThreadRow | undefined;
}

/** Waits for the ticket's thread to have a chat on the platform; returns the thread. */
export async function chatOfTicket(tg: TestGateway, ticketId: number): Promise<ThreadRow & { chatId: string }> {
  await until(async () => (await threadOf(tg, ticketId))?.chatId != null, ARRIVES_MS, `a chat for ticket ${ticketId}`);
  return (await threadOf(tg, ticketId)) as ThreadRow & { chatId: string };
}

/** Every chat of a thread on the platform, newest first, with whether it ended. */
export async function chatsOf(tg: TestGateway, threadId: string): Promise<{ id: string; ended: boolean }[]> {
  const body = (await tg.sandbox.call('GET', `/_sandbox/chats?thread_id=${encodeURIComponent(threadId)}`)).body as { results: { chat: { id: string; is_ended: boolean } }[] };
  return body.results.map((r) => ({ id: r.chat.id, ended: r.chat.is_ended }));
}
