/**
 * Standard Webhooks (https://www.standardwebhooks.com) both ways, through the
 * `standardwebhooks` library rather than by hand:
 *
 *   webhook-id:        msg_…           (the receiver's dedup key)
 *   webhook-timestamp: <unix seconds>  (±5 minutes accepted)
 *   webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">
 *
 * Inbound: `verifyInbound` checks those headers over the raw body bytes.
 * Outbound: `signedHeaders` signs one attempt; `webhookIdOf` names an event so
 * every retry of it carries the same webhook-id.
 */
import { createHash } from 'node:crypto';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { RouteError, type RouteRequest, type WebhookEvent } from '../../src/connector/api.ts';
import { webhookEventKey } from '../../src/platform/schemas/unified-messaging.ts';

export const HEADER_ID = 'webhook-id';
export const HEADER_TIMESTAMP = 'webhook-timestamp';
export const HEADER_SIGNATURE = 'webhook-signature';

/** Why a request's signature was refused (401); never carries the signature or secret. */
export class SignatureRefusedError extends RouteError {
  constructor(message: string, options?: ErrorOptions) {
    super(401, 'TG_SIGNATURE_INVALID', message);
    if (options?.cause !== undefined) this.cause = options.cause;
  }
}

/** Checks a request's signature; `undefined` secret means unsigned requests are allowed. */
export type InboundVerifier = (request: RouteRequest) => void;

export function inboundVerifier(secret: string | undefined): InboundVerifier {
  if (secret === undefined) return () => {};
  const webhook = new Webhook(secret);
  return (request) => {
    const headers: Record<string, string> = {};
    for (const name of [HEADER_ID, HEADER_TIMESTAMP, HEADER_SIGNATURE]) {
      const value = request.headers[name];
      if (value !== undefined) headers[name] = value;
    }
    try {
      // jsonParse off: the body is parsed (and its errors reported) by the route.
      webhook.verify(request.rawBody, headers, { jsonParse: false });
    } catch (err) {
      const reason = err instanceof WebhookVerificationError ? err.message : 'signature could not be checked';
      throw new SignatureRefusedError(`signature check failed: ${reason}`, { cause: err });
    }
  };
}

/** Signs one outbound attempt: a fresh timestamp, the given (stable) id. */
export function signedHeaders(webhook: Webhook, id: string, body: string, now: Date = new Date()): Record<string, string> {
  return {
    [HEADER_ID]: id,
    [HEADER_TIMESTAMP]: String(Math.floor(now.getTime() / 1000)),
    [HEADER_SIGNATURE]: webhook.sign(id, now, body),
  };
}

/**
 * The webhook-id of an event: `msg_` + hex SHA-256 of the gateway's own dedup
 * key (event type + message or reply suggestion id). Deterministic, so a
 * retried or replayed delivery carries the same id and receivers can dedup.
 */
export function webhookIdOf(event: WebhookEvent): string {
  return `msg_${createHash('sha256').update(webhookEventKey(event)).digest('hex')}`;
}
