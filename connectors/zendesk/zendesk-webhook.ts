/**
 * Zendesk's side of the ticket webhook (`../ticket/ticket-webhook.ts`): a
 * webhook of a trigger, or of ticket events, signed as Zendesk signs them.
 *
 *   signature   X-Zendesk-Webhook-Signature = base64(HMAC-SHA256(secret, timestamp + raw body)),
 *               X-Zendesk-Webhook-Signature-Timestamp (ISO 8601) within 5 minutes of the gateway's clock
 *   ticket      `ticket_id`, `ticket.id` or `detail.id` of a JSON body, when it has one
 *
 * The named ticket is read in the next round (`ZendeskAdapter.changeOf`):
 * the export leaves the last minute out.
 */
import { verifyHmacSignature, type RouteRequest } from '../../src/connector/api.ts';
import { jsonBody, numericTicketId, type TicketWebhookOptions } from '../ticket/ticket-webhook.ts';

const TOLERANCE_MS = 5 * 60_000;

/** The ticket id a webhook body names, if any. */
export function ticketIdOf(rawBody: Buffer): string | undefined {
  const b = jsonBody(rawBody) as { ticket_id?: unknown; ticket?: { id?: unknown }; detail?: { id?: unknown } } | null | undefined;
  return numericTicketId(b?.ticket_id, b?.ticket?.id, b?.detail?.id);
}

export function zendeskWebhook(secret: string): TicketWebhookOptions {
  return {
    system: 'Zendesk',
    ticketIdOf,
    verify(request: RouteRequest) {
      const timestamp = request.headers['x-zendesk-webhook-signature-timestamp'];
      const verdict = verifyHmacSignature({ secret, payload: [timestamp ?? '', request.rawBody], signature: request.headers['x-zendesk-webhook-signature'], encoding: 'base64' });
      if (!verdict.ok) return verdict.message;
      const at = Date.parse(timestamp ?? '');
      if (Number.isNaN(at)) return 'the timestamp is not an ISO 8601 time';
      if (Math.abs(Date.now() - at) > TOLERANCE_MS) return 'the timestamp is more than 5 minutes away';
      return undefined;
    },
  };
}
