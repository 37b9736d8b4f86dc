/**
 * The callback URL Meta is given, `/connectors/<name>/webhook`
 * (https://developers.facebook.com/docs/graph-api/webhooks/getting-started):
 *
 *   GET  ?hub.mode=subscribe&hub.verify_token=…&hub.challenge=…
 *        → 200 with the challenge as plain text when the token is verify_token (compared in constant time);
 *          anything else 403 TG_WHATSAPP_VERIFY_REFUSED
 *   POST a notification, X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body with app_secret>
 *        → 401 TG_SIGNATURE_INVALID when it does not verify (nothing read or submitted);
 *          400 TG_REQUEST_INVALID for a signed body that is not a notification;
 *          else each message of this phone_number_id submitted (or skipped) and each status recorded as a
 *          receipt, in order, and only then 200 — a failure on the way answers 5xx (WhatsApp's own, a
 *          media download that may pass: 503 with its code), and Meta sends the notification again (what
 *          was stored is a duplicate then)
 *
 * A change for another phone number id is passed over (a WhatsApp Business
 * account with several numbers sends them all to one callback URL). Refusals
 * are logged at info with their code, never with the token, the signature or
 * a body.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { RouteError, verifyHmacSignature, type ConnectorContext, type RouteRequest, type RouteResponse } from '../../src/connector/api.ts';
import type { Intake } from './inbound-message.ts';
import { recordStatus } from './status-receipts.ts';
import { messagesChanges, senderOf, type MessagesValue, type WaMessage } from './webhook-payload.ts';

export interface WebhookSecrets {
  appSecret: string;
  verifyToken: string;
}

/** What the routes count, for health. */
export interface WebhookCounts {
  messages: number;
  receipts: number;
}

/** Whether two strings are equal, in time that tells nothing of either (their digests are compared). */
function sameText(a: string, b: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(a), digest(b));
}

export interface WebhookRouteOptions {
  phoneNumberId: string;
  /** The secrets now (a settings reload may change them). */
  secrets: () => WebhookSecrets;
  /** Submits (or skips) one customer message (inbound-message.ts); resolves after the commit. */
  take: (message: WaMessage, sender: { waId: string; name: string | undefined }, signal: AbortSignal) => Promise<Intake>;
  counts: WebhookCounts;
  /** Aborts when the gateway stops. */
  signal: () => AbortSignal;
}

export function registerWebhookRoutes(ctx: ConnectorContext, o: WebhookRouteOptions): void {
  /** The refusal to throw, logged at info. */
  const refusal = (status: number, code: string, message: string): RouteError => {
    ctx.logger.info({ code, status }, `WhatsApp webhook refused: ${message}`);
    return new RouteError(status, code, message);
  };

  ctx.routes.add('GET', '/webhook', (request): RouteResponse => {
    const mode = request.query['hub.mode'];
    const token = request.query['hub.verify_token'] ?? '';
    const challenge = request.query['hub.challenge'];
    if (mode !== 'subscribe') throw refusal(403, 'TG_WHATSAPP_VERIFY_REFUSED', 'hub.mode must be subscribe');
    if (!sameText(token, o.secrets().verifyToken)) throw refusal(403, 'TG_WHATSAPP_VERIFY_REFUSED', 'hub.verify_token is not the verify_token of this connector');
    if (challenge === undefined || challenge === '' || challenge.length > 1_000) throw refusal(403, 'TG_WHATSAPP_VERIFY_REFUSED', 'hub.challenge is missing');
    ctx.logger.info('WhatsApp verified the callback URL');
    return { status: 200, body: challenge, headers: { 'content-type': 'text/plain; charset=utf-8' } };
  });

  ctx.routes.add('POST', '/webhook', async (request: RouteRequest): Promise<RouteResponse> => {
    const verdict = verifyHmacSignature({ secret: o.secrets().appSecret, payload: request.rawBody, signature: request.headers['x-hub-signature-256'], prefix: 'sha256=', encoding: 'hex' });
    if (!verdict.ok) throw refusal(401, 'TG_SIGNATURE_INVALID', `the X-Hub-Signature-256 does not verify with app_secret: ${verdict.message}`);
    let body: unknown;
    try {
      body = JSON.parse(request.rawBody.toString('utf8'));
    } catch {
      throw refusal(400, 'TG_REQUEST_INVALID', 'the body is not JSON');
    }
    const { values, problem } = messagesChanges(body);
    if (problem !== undefined) throw refusal(400, 'TG_REQUEST_INVALID', `not a WhatsApp notification: ${problem}`);
    const tally: Record<Intake | 'receipts' | 'other_numbers', number> = { submitted: 0, duplicate: 0, skipped: 0, receipts: 0, other_numbers: 0 };
    try {
      await take(values, tally);
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if (typeof code !== 'string' || !code.startsWith('TG_WHATSAPP_')) throw err;
      // WhatsApp's trouble (a media download): Meta sends the notification again; what was stored is a duplicate then.
      ctx.logger.warn({ code, status: 503 }, `WhatsApp notification not taken yet: ${(err as Error).message}`);
      throw new RouteError(503, code, (err as Error).message);
    }
    if (tally.other_numbers > 0) ctx.logger.debug({ changes: tally.other_numbers }, 'WhatsApp changes for another phone number id passed over');
    return { status: 200, body: tally };
  });

  /** Each message of this number submitted (or skipped) and each status recorded, in order, counted in `tally`. */
  async function take(values: MessagesValue[], tally: Record<Intake | 'receipts' | 'other_numbers', number>): Promise<void> {
    for (const value of values) {
      if (value.metadata.phone_number_id !== o.phoneNumberId) {
        tally.other_numbers += 1;
        continue;
      }
      for (const message of value.messages ?? []) {
        tally[await o.take(message, senderOf(value, message), o.signal())] += 1;
        o.counts.messages += 1;
      }
      for (const status of value.statuses ?? []) {
        if (await recordStatus(ctx, status)) {
          tally.receipts += 1;
          o.counts.receipts += 1;
        }
      }
    }
  }
}
