/**
 * The WhatsApp connector: a business phone number of the WhatsApp Business
 * Cloud API as conversations on the platform, one per customer (wa_id).
 *
 *   customer's message      ──signed webhook POST /connectors/<name>/webhook──▶ webhook-routes ──▶ ctx.submit
 *     its media             ──GET /{media-id}, the URL with the token────────▶ inbound-media ──▶ ctx.files (a link)
 *   status callback         ──(sent, delivered, read, failed)────────────────▶ status-receipts ──▶ ctx.receipts
 *   agent reply             ◀── reply-sender ◀── deliver(message_created): text parts and files, exactly once
 *     outside the 24 hours  ◀── the configured template instead, or dead-lettered with WhatsApp's 131047
 *
 * Settings: `config.ts`. Graph over HTTP and its errors: `graph-http.ts`,
 * `graph-errors.ts`, `cloud-api.ts`. Setup on Meta's side:
 * docs/chat-apps/whatsapp.md; choices: docs/decisions/whatsapp-connector.md.
 */
import { defineConnector, type ConnectorInstance } from '../../src/connector/api.ts';
import { CloudApi } from './cloud-api.ts';
import { WhatsAppConnectorConfig } from './config.ts';
import { WhatsAppTokenRefusedError } from './graph-errors.ts';
import { GraphHttp } from './graph-http.ts';
import { InboundMedia } from './inbound-media.ts';
import { InboundMessages } from './inbound-message.ts';
import { pruneReplyProgress, ReplySender } from './reply-sender.ts';
import { registerWebhookRoutes, type WebhookCounts, type WebhookSecrets } from './webhook-routes.ts';

export { WhatsAppConnectorConfig } from './config.ts';
export { WhatsAppAnswerMalformedError, WhatsAppRateLimitedError, WhatsAppRefusedError, WhatsAppTokenRefusedError, WhatsAppUnavailableError, WhatsAppWindowClosedError } from './graph-errors.ts';
export { WhatsAppNoCustomerError } from './reply-sender.ts';

/** A reply's progress is kept this long after its event (then a replay would send it again). */
export const PROGRESS_KEPT_MS = 30 * 24 * 60 * 60 * 1000;
const PRUNE_EVERY_MS = 60 * 60 * 1000;

export default defineConnector({
  type: 'whatsapp',
  configSchema: WhatsAppConnectorConfig,

  create(config, ctx): ConnectorInstance {
    const http = new GraphHttp({ apiUrl: config.api_url, version: config.api_version, token: config.access_token, timeoutMs: config.timeout_ms });
    const api = new CloudApi(http, config.phone_number_id);
    let token = config.access_token;
    let secrets: WebhookSecrets = { appSecret: config.app_secret, verifyToken: config.verify_token };
    const counts: WebhookCounts = { messages: 0, receipts: 0 };
    const stopping = new AbortController();
    let lastError: string | null = null;
    let tokenRefused = false;
    /** Notes how a call to WhatsApp ended, for health (the token's state, the last error). */
    const noted = async <T>(work: Promise<T>): Promise<T> => {
      try {
        const result = await work;
        tokenRefused = false;
        return result;
      } catch (err) {
        if (!stopping.signal.aborted) {
          lastError = `${(err as { code?: string }).code ?? 'Error'}: ${(err as Error).message}`.slice(0, 500);
          tokenRefused = err instanceof WhatsAppTokenRefusedError;
        }
        throw err;
      }
    };

    const messages = new InboundMessages(ctx, new InboundMedia(api, ctx.files, config.attachments));
    registerWebhookRoutes(ctx, {
      phoneNumberId: config.phone_number_id,
      secrets: () => secrets,
      take: (message, sender, signal) => noted(messages.take(message, sender, signal)),
      counts,
      signal: () => stopping.signal,
    });
    const replies = new ReplySender(ctx, api, { template: config.template, limits: config.attachments });
    let pruning: NodeJS.Timeout | undefined;
    const prune = () => void pruneReplyProgress(ctx, Date.now() - PROGRESS_KEPT_MS).catch((err: unknown) => ctx.logger.warn({ err }, 'pruning old reply progress failed'));

    return {
      start() {
        pruning = setInterval(prune, PRUNE_EVERY_MS);
        pruning.unref();
      },
      stop() {
        stopping.abort();
        clearInterval(pruning);
      },
      deliver(event, thread, context) {
        return noted(replies.deliver(event, thread, context.signal));
      },
      health() {
        const details = { phone_number_id: config.phone_number_id, api: http.host, api_version: config.api_version, template: config.template?.name ?? null, messages_received: counts.messages, receipts_seen: counts.receipts, last_error: lastError };
        return tokenRefused ? { ok: false, details: { ...details, problem: 'WhatsApp refused the access token' } } : { ok: true, details };
      },
      reconfigure(next) {
        const changed = next as WhatsAppConnectorConfig;
        const applied: string[] = [];
        if (changed.access_token !== token) applied.push('access_token');
        if (changed.app_secret !== secrets.appSecret) applied.push('app_secret');
        if (changed.verify_token !== secrets.verifyToken) applied.push('verify_token');
        token = changed.access_token;
        http.setToken(token);
        secrets = { appSecret: changed.app_secret, verifyToken: changed.verify_token };
        return applied;
      },
    };
  },
});
