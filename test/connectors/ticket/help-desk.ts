/**
 * What the end-to-end tests of every ticket connector share: a real gateway
 * (against the sandbox) whose one connector, `desk`, polls the system, and
 * readers of what the platform (the sandbox) and the gateway's store hold.
 * Each system's support.ts adds its settings entry and its counterpart.
 */
import { startTestGateway, type TestGateway } from '../../support/gateway.ts';
import { until } from '../../support/wait.ts';

/** The connector's name in the tests' settings, unless a system's tests name it otherwise. */
export const CONNECTOR = 'desk';

export interface DeskGatewayOptions {
  /** Reuse the sandbox and folder of a stopped gateway (a restart). */
  after?: TestGateway;
  /** Do not wait for the first poll (a connector that cannot start). */
  noWait?: boolean;
  logLines?: string[];
}

/** A gateway with `entry` as its one connector, once the connector has polled (unless `noWait`). */
export async function startDeskGateway(entry: Record<string, unknown>, options: DeskGatewayOptions, firstPollMs: number): Promise<TestGateway> {
  const tg = await startTestGateway({
    connectors: [entry],
    ...(options.after ? { sandbox: options.after.sandbox, dir: options.after.dir } : {}),
    ...(options.logLines ? { logLines: options.logLines } : {}),
  });
  if (!options.noWait) await until(async () => (await health(tg, String(entry.name))).details.polls >= 1, firstPollMs, `the first poll of ${String(entry.type)}`);
  return tg;
}

export async function health(tg: TestGateway, connector = CONNECTOR): Promise<{ ok: boolean; details: Record<string, any> }> {
  return (await tg.call('GET', '/readyz')).body.connectors[connector];
}

export interface ThreadRow {
  key: string;
  threadId: string;
  chatId: string | null;
}

/** Readers of a ticket's thread, whose key ends in `/<segment>/<id>` (its host: the system's, or a proxy's). */
export function ticketThreads(segment: string, arrivesMs: number, connector = CONNECTOR) {
  const threadOf = async (tg: TestGateway, ticketId: number | string): Promise<ThreadRow | undefined> => {
    const sql = `select thread_key as key, thread_id as "threadId", chat_id as "chatId" from threads where connector = ? and thread_key like ?`;
    return (await tg.gateway.store.read.sql.get(sql, [connector, `%/${segment}/${ticketId}`])) as ThreadRow | undefined;
  };
  /** Waits for the ticket's thread to have a chat on the platform; returns the thread. */
  const chatOfTicket = async (tg: TestGateway, ticketId: number | string): Promise<ThreadRow & { chatId: string }> => {
    await until(async () => (await threadOf(tg, ticketId))?.chatId != null, arrivesMs, `a chat for ticket ${ticketId}`);
    return (await threadOf(tg, ticketId)) as ThreadRow & { chatId: string };
  };
  return { threadOf, chatOfTicket };
}

/** Every chat of a thread on the platform, newest first, with whether it ended. */
export async function chatsOf(tg: TestGateway, threadId: string): Promise<{ id: string; ended: boolean }[]> {
  const body = (await tg.sandbox.call('GET', `/_sandbox/chats?thread_id=${encodeURIComponent(threadId)}`)).body as { results: { chat: { id: string; is_ended: boolean } }[] };
  return body.results.map((r) => ({ id: r.chat.id, ended: r.chat.is_ended }));
}
