/**
 * A ticket system's webhook as a nudge, never as a source of truth: a signed
 * `POST /connectors/<name>/webhook` (a trigger's, an automation's) wakes the
 * poller early and names the ticket it is about, which the next round reads
 * directly even when the system's listing shows it late (`changeOf`).
 * Nothing depends on it: without the webhook, or when a request is lost, the
 * poll lists every change all the same.
 *
 *   signature   the system's own scheme (`verify`): anything else → 401 TG_SIGNATURE_INVALID,
 *               logged at info with the reason, never the signature or the body
 *   ticket      the id `ticketIdOf` finds in the body, when it finds one
 *   answer      200 {"woken": true, "ticket_id": "…" | null}
 *
 * Waking is the seam's (`TicketPoller.wake`): a wake while the poller rests
 * after a successful round starts the next round at once; one during a round
 * skips the rest after it. A round that failed rests as long as it must (a
 * backoff, a Retry-After): no wake shortens it. The health details count the
 * requests taken (`webhooks_received`).
 *
 *   create(config, ctx) {
 *     const instance = ticketConnectorInstance(ctx, { … });
 *     return config.webhook_secret === undefined ? instance
 *       : withTicketWebhook(instance, ctx, { system: 'Zammad', verify: (r) => …, ticketIdOf: (body) => … });
 *   }
 */
import { RouteError, type ConnectorContext, type ConnectorInstance, type RouteRequest, type RouteResponse } from '../../src/connector/api.ts';
import type { TicketConnectorInstance } from './ticket-connector.ts';

export interface TicketWebhookOptions {
  /** The system's name, for the log line and the refusal ("Zammad"). */
  system: string;
  /** Why the request is refused (a failed signature check, a stale timestamp), or undefined when it is the system's. */
  verify(request: RouteRequest): string | undefined;
  /** The ticket id the body names (already checked by `verify`), if any. */
  ticketIdOf(rawBody: Buffer): string | undefined;
}

/** Registers the webhook route on `ctx` and answers the instance with `webhooks_received` in its health. */
export function withTicketWebhook(instance: TicketConnectorInstance, ctx: ConnectorContext, options: TicketWebhookOptions): ConnectorInstance {
  let received = 0;
  const receive = (request: RouteRequest): RouteResponse => {
    const why = options.verify(request);
    if (why !== undefined) {
      ctx.logger.info({ code: 'TG_SIGNATURE_INVALID', reason: why }, `${options.system} webhook refused`);
      throw new RouteError(401, 'TG_SIGNATURE_INVALID', `the ${options.system} webhook signature does not verify: ${why}`);
    }
    const ticketId = options.ticketIdOf(request.rawBody);
    received += 1;
    instance.wake(ticketId);
    return { status: 200, body: { woken: true, ticket_id: ticketId ?? null } };
  };
  ctx.routes.add('POST', '/webhook', receive);
  const health = instance.health!;
  return {
    ...instance,
    health: async () => {
      const h = await health.call(instance);
      return { ...h, details: { ...h.details, webhooks_received: received } };
    },
  };
}

/** The first of `candidates` that is a ticket id (digits, as a number or a string). */
export function numericTicketId(...candidates: unknown[]): string | undefined {
  for (const candidate of candidates) {
    const text = typeof candidate === 'number' ? String(candidate) : typeof candidate === 'string' ? candidate.trim() : '';
    if (/^\d{1,19}$/.test(text)) return text;
  }
  return undefined;
}

/** A request body as JSON, or undefined when it is none. */
export function jsonBody(rawBody: Buffer): unknown {
  try {
    return JSON.parse(rawBody.toString('utf8'));
  } catch {
    return undefined;
  }
}
