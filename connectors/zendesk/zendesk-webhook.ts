/**
 * Zendesk's webhook as a nudge, never as a source of truth: a signed
 * `POST /connectors/<name>/webhook` (a webhook of a trigger, or of ticket
 * events) wakes the poller early and names the ticket it is about, which the
 * next round reads directly (the export would leave it out for a minute).
 * Nothing depends on it: without the webhook, or when a request is lost, the
 * export lists every change all the same.
 *
 *   signature   X-Zendesk-Webhook-Signature = base64(HMAC-SHA256(secret, timestamp + raw body)),
 *               X-Zendesk-Webhook-Signature-Timestamp (ISO 8601) within 5 minutes of the gateway's clock;
 *               anything else → 401 TG_SIGNATURE_INVALID (logged at info without the signature or body)
 *   ticket      `ticket_id`, `ticket.id` or `detail.id` of a JSON body, when it has one
 *
 * Waking is the seam's (`TicketPoller.wake`): a wake while the poller rests
 * after a successful round starts the next round at once; one during a round
 * skips the rest after it. A round that failed rests as long as it must (a
 * backoff, a Retry-After): no wake shortens it.
 */
import { RouteError, verifyHmacSignature, type ConnectorContext, type ConnectorInstance, type RouteRequest, type RouteResponse } from '../../src/connector/api.ts';
import type { TicketConnectorInstance } from '../ticket/ticket-connector.ts';

const TOLERANCE_MS = 5 * 60_000;

/** The ticket id a webhook body names, if any. */
export function ticketIdOf(rawBody: Buffer): string | undefined {
  let body: unknown;
  try {
    body = JSON.parse(rawBody.toString('utf8'));
  } catch {
    return undefined;
  }
  const b = body as { ticket_id?: unknown; ticket?: { id?: unknown }; detail?: { id?: unknown } } | null;
  for (const candidate of [b?.ticket_id, b?.ticket?.id, b?.detail?.id]) {
    const text = typeof candidate === 'number' ? String(candidate) : typeof candidate === 'string' ? candidate.trim() : '';
    if (/^\d{1,19}$/.test(text)) return text;
  }
  return undefined;
}

export class WebhookWake {
  readonly #secret: string;
  woken = 0;

  constructor(secret: string) {
    this.#secret = secret;
  }

  /** Registers the route, which wakes `instance`'s poller; `hint` takes the ticket a webhook names. */
  attach(instance: TicketConnectorInstance, ctx: ConnectorContext, hint: (ticketId: string) => void): ConnectorInstance {
    ctx.routes.add('POST', '/webhook', (request) => this.#receive(ctx, request, hint, instance));
    const health = instance.health;
    return {
      ...instance,
      health: async () => {
        const h = await health!.call(instance);
        return { ...h, details: { ...h.details, webhooks_received: this.woken } };
      },
    };
  }

  #receive(ctx: ConnectorContext, request: RouteRequest, hint: (ticketId: string) => void, instance: TicketConnectorInstance): RouteResponse {
    const timestamp = request.headers['x-zendesk-webhook-signature-timestamp'];
    const verdict = verifyHmacSignature({ secret: this.#secret, payload: [timestamp ?? '', request.rawBody], signature: request.headers['x-zendesk-webhook-signature'], encoding: 'base64' });
    const at = Date.parse(timestamp ?? '');
    const why = !verdict.ok ? verdict.message : Number.isNaN(at) ? 'the timestamp is not an ISO 8601 time' : Math.abs(Date.now() - at) > TOLERANCE_MS ? 'the timestamp is more than 5 minutes away' : undefined;
    if (why !== undefined) {
      ctx.logger.info({ code: 'TG_SIGNATURE_INVALID', reason: why }, 'Zendesk webhook refused');
      throw new RouteError(401, 'TG_SIGNATURE_INVALID', `the Zendesk webhook signature does not verify: ${why}`);
    }
    const ticketId = ticketIdOf(request.rawBody);
    if (ticketId !== undefined) hint(ticketId);
    this.woken += 1;
    instance.wake();
    return { status: 200, body: { woken: true, ticket_id: ticketId ?? null } };
  }
}
