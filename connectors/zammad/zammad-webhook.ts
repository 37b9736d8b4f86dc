/**
 * Zammad's side of the ticket webhook (`../ticket/ticket-webhook.ts`): a
 * webhook (Settings → Manage → Webhook) called by a trigger, with an
 * "HMAC SHA1 Signature Token", pointed at `/connectors/<name>/webhook`.
 *
 *   signature   X-Hub-Signature = "sha1=" + hex(HMAC-SHA1(token, raw body))
 *   ticket      `ticket.id` of the trigger's payload (Zammad's default payload is
 *               `{"ticket": {…}, "article": {…}}`), or `ticket_id` of a custom one
 *
 * Zammad signs no timestamp, so a captured request could be sent again: that
 * only wakes the poller once more, which reads what the system holds. The
 * named ticket is read in the next round directly (`ZammadAdapter.changeOf`):
 * the search index may take it a moment later.
 */
import { verifyHmacSignature, type RouteRequest } from '../../src/connector/api.ts';
import { jsonBody, numericTicketId, type TicketWebhookOptions } from '../ticket/ticket-webhook.ts';

/** The ticket id a trigger's payload names, if any. */
export function ticketIdOf(rawBody: Buffer): string | undefined {
  const b = jsonBody(rawBody) as { ticket?: { id?: unknown }; ticket_id?: unknown } | null | undefined;
  return numericTicketId(b?.ticket?.id, b?.ticket_id);
}

export function zammadWebhook(token: string): TicketWebhookOptions {
  return {
    system: 'Zammad',
    ticketIdOf,
    verify(request: RouteRequest) {
      const verdict = verifyHmacSignature({ secret: token, payload: request.rawBody, signature: request.headers['x-hub-signature'], algorithm: 'sha1', prefix: 'sha1=' });
      return verdict.ok ? undefined : verdict.message;
    },
  };
}
