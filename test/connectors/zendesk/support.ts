/**
 * A help desk for the Zendesk connector's tests: the Zendesk counterpart
 * (test/support/zendesk/) with the export's limit raised for a poll a second
 * (unless a test asks for the documented one), and a real gateway (against
 * the sandbox) whose `zendesk` connector polls it every second; plus readers
 * of what the platform (the sandbox) and the gateway's store hold.
 */
import { onTestFinished } from 'vitest';
import type { TestGateway } from '../../support/gateway.ts';
import { chatsOf, health as deskHealth, startDeskGateway, ticketThreads, type DeskGatewayOptions, type ThreadRow } from '../ticket/help-desk.ts';
import { startZendesk, type TestZendesk, type ZendeskOptions } from '../../support/zendesk/zendesk.ts';

/** A poll a second, four requests per changed ticket, then the platform POST. */
export const ARRIVES_MS = 20_000;
export const CONNECTOR = 'support';

/** A counterpart for this test, closed after it; the export allows a request a second (Zendesk: 10 a minute). */
export async function zendesk(options: ZendeskOptions = {}): Promise<TestZendesk> {
  const desk = await startZendesk({ ...options, limits: { export: { max: 120, windowMs: 60_000 }, ...options.limits } });
  onTestFinished(() => desk.close());
  return desk;
}

export interface HelpDeskOptions extends DeskGatewayOptions {
  extra?: Record<string, unknown>;
}

/** The settings entry as the docs show it (url for the counterpart's address instead of subdomain). */
export function connectorEntry(desk: TestZendesk, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { name: CONNECTOR, type: 'zendesk', url: desk.url, email: desk.gateway.email, api_token: desk.gateway.apiToken, poll_seconds: 1, ...extra };
}

export async function helpDesk(desk: TestZendesk, options: HelpDeskOptions = {}): Promise<TestGateway> {
  const tg = await startDeskGateway(connectorEntry(desk, options.extra), options, ARRIVES_MS);
  return tg;
}

const threads = ticketThreads('tickets', ARRIVES_MS, CONNECTOR);
export const threadOf = threads.threadOf;
/** Waits for the ticket's thread to have a chat on the platform; returns the thread. */
export const chatOfTicket = threads.chatOfTicket;
export const health = (tg: TestGateway) => deskHealth(tg, CONNECTOR);
export { chatsOf, type ThreadRow };

/** The gateway's own comments on a ticket (agent replies it wrote). */
export const gatewayComments = (desk: TestZendesk, ticketId: number) => desk.comments(ticketId).filter((c) => c.author_id === desk.gateway.id);
