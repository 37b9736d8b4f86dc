/**
 * A help desk for the Zammad connector's end-to-end tests: a fresh group in
 * the file's Zammad counterpart, and a real gateway (against the sandbox)
 * whose `zammad` connector polls it every second; plus readers of what the
 * platform (the sandbox) and the gateway's store hold.
 */
import type { TestGateway } from '../../support/gateway.ts';
import { chatsOf, health as deskHealth, startDeskGateway, ticketThreads, type DeskGatewayOptions, type ThreadRow } from '../ticket/help-desk.ts';
import type { TestZammad } from '../../support/zammad/zammad-counterpart.ts';

/** A poll a second, four Zammad round trips per changed ticket, then the platform POST. */
export const ARRIVES_MS = 15_000;
export const CONNECTOR = 'desk';

export interface HelpDesk {
  tg: TestGateway;
  group: string;
}

export interface HelpDeskOptions extends DeskGatewayOptions {
  /** The Zammad URL the connector uses (a proxy in front of it). */
  url?: string;
  group?: string;
  extra?: Record<string, unknown>;
}

/** The settings entry exactly as the docs show it: url, token, group, poll_seconds. */
export function connectorEntry(zammad: TestZammad, group: string, url = zammad.url, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { name: CONNECTOR, type: 'zammad', url, token: zammad.gateway.token, group, poll_seconds: 1, ...extra };
}

export async function helpDesk(zammad: TestZammad, options: HelpDeskOptions = {}): Promise<HelpDesk> {
  const group = options.group ?? (await zammad.newGroup());
  const tg = await startDeskGateway(connectorEntry(zammad, group, options.url, options.extra), options, ARRIVES_MS);
  return { tg, group };
}

const threads = ticketThreads('ticket', ARRIVES_MS, CONNECTOR);
export const threadOf = threads.threadOf;
/** Waits for the ticket's thread to have a chat on the platform; returns the thread. */
export const chatOfTicket = threads.chatOfTicket;
export const health = (tg: TestGateway) => deskHealth(tg, CONNECTOR);
export { chatsOf, type ThreadRow };

/** The articles the gateway's user wrote on the ticket, as Zammad's staff see them. */
export async function gatewayArticles(zammad: TestZammad, ticketId: number): Promise<any[]> {
  return (await zammad.staff.articles(ticketId)).filter((a) => a.created_by_id === zammad.gateway.user.id);
}
