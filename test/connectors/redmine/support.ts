/**
 * A help desk for the Redmine connector's end-to-end tests: a fresh project
 * in the run's real Redmine, and a real gateway (against the sandbox) whose
 * `redmine` connector polls it every second; plus readers of what the
 * platform (the sandbox) and the gateway's store hold.
 */
import { until } from '../../support/wait.ts';
import { chatTexts, startTestGateway, type TestGateway } from '../../support/gateway.ts';
import type { TestRedmine } from '../../support/redmine.ts';

/** A poll a second, one Redmine round trip per changed issue, then the platform POST. */
export const ARRIVES_MS = 15_000;
export const CONNECTOR = 'desk';

export interface HelpDesk {
  tg: TestGateway;
  project: string;
}

export interface HelpDeskOptions {
  /** The Redmine URL the connector uses (an outage proxy in front of it). */
  url?: string;
  project?: string;
  extra?: Record<string, unknown>;
  /** Reuse the sandbox and folder of a stopped gateway (a restart). */
  after?: TestGateway;
  /** Do not wait for the first poll (a connector that cannot start). */
  noWait?: boolean;
  logLines?: string[];
}

export function connectorEntry(rm: TestRedmine, project: string, url = rm.url, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { name: CONNECTOR, type: 'redmine', url, api_key: rm.seed.gateway_key, project, poll_seconds: 1, ...extra };
}

export async function helpDesk(rm: TestRedmine, options: HelpDeskOptions = {}): Promise<HelpDesk> {
  const project = options.project ?? (await rm.newProject());
  const tg = await startTestGateway({
    connectors: [connectorEntry(rm, project, options.url, options.extra)],
    ...(options.after ? { sandbox: options.after.sandbox, dir: options.after.dir } : {}),
    ...(options.logLines ? { logLines: options.logLines } : {}),
  });
  if (!options.noWait) await until(async () => (await health(tg)).details.polls >= 1, ARRIVES_MS, 'the first poll of Redmine');
  return { tg, project };
}

export interface HealthJson {
  ok: boolean;
  details: Record<string, any>;
}

export async function health(tg: TestGateway): Promise<HealthJson> {
  return (await tg.call('GET', '/readyz')).body.connectors[CONNECTOR] as HealthJson;
}

export interface ThreadRow {
  key: string;
  threadId: string;
  chatId: string | null;
}

export async function threadsOf(tg: TestGateway): Promise<ThreadRow[]> {
  return (await tg.gateway.store.read.sql.all(`select thread_key as key, thread_id as "threadId", chat_id as "chatId" from threads where connector = ? order by id`, [CONNECTOR])) as ThreadRow[];
}

export async function threadOf(tg: TestGateway, rm: TestRedmine, issueId: number): Promise<ThreadRow | undefined> {
  const key = `${new URL(rm.url).host}/issues/${issueId}`;
  return (await threadsOf(tg)).find((t) => t.key === key || t.key.endsWith(`/issues/${issueId}`));
}

/** Every chat of a thread on the platform, newest first, with whether it ended. */
export async function chatsOf(tg: TestGateway, threadId: string): Promise<{ id: string; ended: boolean }[]> {
  const body = (await tg.sandbox.call('GET', `/_sandbox/chats?thread_id=${encodeURIComponent(threadId)}`)).body as { results: { chat: { id: string; is_ended: boolean } }[] };
  return body.results.map((r) => ({ id: r.chat.id, ended: r.chat.is_ended }));
}

/** Waits for the issue's thread to have a chat on the platform; returns the thread. */
export async function chatOfIssue(tg: TestGateway, rm: TestRedmine, issueId: number): Promise<ThreadRow & { chatId: string }> {
  await until(async () => (await threadOf(tg, rm, issueId))?.chatId != null, ARRIVES_MS, `a chat for issue ${issueId}`);
  return (await threadOf(tg, rm, issueId)) as ThreadRow & { chatId: string };
}

/** Every visitor message the platform holds for the connector's threads, in all their chats, sorted. */
export async function allVisitorTexts(tg: TestGateway): Promise<string[]> {
  const out: string[] = [];
  for (const t of (await threadsOf(tg))) {
    for (const chat of await chatsOf(tg, t.threadId)) out.push(...(await chatTexts(tg, chat.id)));
  }
  return out.sort();
}
