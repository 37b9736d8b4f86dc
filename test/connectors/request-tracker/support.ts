/**
 * A help desk for the Request Tracker connector's end-to-end tests: a fresh
 * queue in the run's real RT 5, and a real gateway (against the sandbox)
 * whose `request-tracker` connector polls it every second; plus readers of
 * what the platform (the sandbox) and the gateway's store hold.
 */
import type { TestGateway } from '../../support/gateway.ts';
import { chatsOf, health as deskHealth, startDeskGateway, ticketThreads, type DeskGatewayOptions, type ThreadRow } from '../ticket/help-desk.ts';
import type { TestRequestTracker } from '../../support/request-tracker.ts';

/** A poll a second, five RT round trips (~0.2 s each) per changed ticket, then the platform POST. */
export const ARRIVES_MS = 20_000;
export const CONNECTOR = 'desk';

export interface HelpDesk {
  tg: TestGateway;
  queue: string;
}

export interface HelpDeskOptions extends DeskGatewayOptions {
  /** The RT URL the connector uses (a proxy in front of it). */
  url?: string;
  queue?: string;
  extra?: Record<string, unknown>;
}

/** The settings entry exactly as docs/ticket-systems.md shows it: url, token, queue, poll_seconds. */
export function connectorEntry(rt: TestRequestTracker, queue: string, url = rt.url, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { name: CONNECTOR, type: 'request-tracker', url, token: rt.seed.gateway_token, queue, poll_seconds: 1, ...extra };
}

export async function helpDesk(rt: TestRequestTracker, options: HelpDeskOptions = {}): Promise<HelpDesk> {
  const queue = options.queue ?? (await rt.newQueue());
  const tg = await startDeskGateway(connectorEntry(rt, queue, options.url, options.extra), options, ARRIVES_MS);
  return { tg, queue };
}

const threads = ticketThreads('ticket', ARRIVES_MS, CONNECTOR);
export const threadOf = threads.threadOf;
/** Waits for the ticket's thread to have a chat on the platform; returns the thread. */
export const chatOfTicket = threads.chatOfTicket;
export const health = (tg: TestGateway) => deskHealth(tg, CONNECTOR);
export { chatsOf, type ThreadRow };
