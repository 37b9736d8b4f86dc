/**
 * A help desk for the Jira Service Management connector's end-to-end tests:
 * a fresh counterpart of a Jira Cloud site (closed after the test), and a
 * real gateway (against the sandbox) whose `jira-service-management`
 * connector polls it every second; plus readers of what the platform (the
 * sandbox) and the gateway's store hold.
 */
import { onTestFinished } from 'vitest';
import type { TestGateway } from '../../support/gateway.ts';
import { chatsOf, health as deskHealth, startDeskGateway, ticketThreads, type DeskGatewayOptions, type ThreadRow } from '../ticket/help-desk.ts';
import { startJsm, type JsmCounterpart, type JsmOptions } from '../../support/jira-service-management/jsm-counterpart.ts';

/** A poll a second, a search and two reads per changed request, then the platform's POST. */
export const ARRIVES_MS = 15_000;
export const CONNECTOR = 'desk';

export async function jiraSite(options: JsmOptions = {}): Promise<JsmCounterpart> {
  const jsm = await startJsm(options);
  onTestFinished(() => jsm.close());
  return jsm;
}

/** The settings entry as the docs show it: url, email, api_token, service_desk, poll_seconds. */
export function connectorEntry(jsm: JsmCounterpart, extra: Record<string, unknown> = {}, url = jsm.url): Record<string, unknown> {
  return { name: CONNECTOR, type: 'jira-service-management', url, email: jsm.gateway.email, api_token: jsm.gateway.apiToken, service_desk: jsm.desk.projectKey, poll_seconds: 1, ...extra };
}

export interface HelpDeskOptions extends DeskGatewayOptions {
  /** The Jira URL the connector uses (a proxy in front of the counterpart). */
  url?: string;
  extra?: Record<string, unknown>;
}

export async function helpDesk(jsm: JsmCounterpart, options: HelpDeskOptions = {}): Promise<TestGateway> {
  const tg = await startDeskGateway(connectorEntry(jsm, options.extra, options.url), options, ARRIVES_MS);
  return tg;
}

const threads = ticketThreads('issue', ARRIVES_MS, CONNECTOR);
export const threadOf = threads.threadOf;
/** Waits for the ticket's thread to have a chat on the platform; returns the thread. */
export const chatOfRequest = threads.chatOfTicket;
export const health = (tg: TestGateway) => deskHealth(tg, CONNECTOR);
export { chatsOf, type ThreadRow };

/** The platform's agent answers in a chat, with files given as `{ name, content_type, bytes }`. */
export async function agentAnswers(tg: TestGateway, chatId: string, text: string, files: { name: string; contentType: string; bytes: Buffer }[] = []): Promise<void> {
  const attachments = files.map((f) => ({ type: 'file', name: f.name, content_type: f.contentType, content_base64: f.bytes.toString('base64') }));
  await tg.sandbox.call('POST', `/_sandbox/chats/${chatId}/agent_messages`, { text, ...(attachments.length > 0 ? { attachments } : {}) });
}
