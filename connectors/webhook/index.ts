/**
 * The generic webhook connector: any system that can send and receive signed
 * HTTP requests talks to the platform through it.
 *
 *   your system ── POST /connectors/<name>/messages (Standard Webhooks signed) ──▶ platform
 *   your system ◀── POST outbound_url (Standard Webhooks signed) ── agent reply
 *
 * Settings: `config.ts`. Inbound routes: `inbound-routes.ts`. Outbound
 * delivery and its errors: `outbound.ts`, `outbound-errors.ts`.
 */
import { defineConnector, type ConnectorContext, type ConnectorInstance } from '../../src/connector/api.ts';
import { linkedAttachments } from './attachment-links.ts';
import { WebhookConnectorConfig } from './config.ts';
import { registerInboundRoutes } from './inbound-routes.ts';
import { LogOnlyReplySink, WebhookReplySink, type ReplySink } from './outbound.ts';
import { inboundVerifier } from './standard-webhooks.ts';

export { WebhookConnectorConfig } from './config.ts';
export { OutboundWebhookError, OutboundWebhookRejectedError, OutboundWebhookTimeoutError } from './outbound-errors.ts';

function replySink(config: WebhookConnectorConfig, ctx: ConnectorContext): ReplySink {
  if (config.outbound_url === undefined || config.outbound_secret === undefined) {
    ctx.logger.info('no outbound_url set: agent replies are only logged');
    return new LogOnlyReplySink(ctx.logger);
  }
  return new WebhookReplySink({
    url: config.outbound_url,
    secret: config.outbound_secret,
    timeoutMs: config.timeout_ms,
    connectorName: ctx.name,
    logger: ctx.logger,
    linkAttachments: (attachments, stop) => linkedAttachments(attachments, ctx, stop),
  });
}

export default defineConnector({
  type: 'webhook',
  configSchema: WebhookConnectorConfig,

  create(config, ctx): ConnectorInstance {
    if (config.allow_unsigned) {
      ctx.logger.warn('allow_unsigned is true: inbound requests are accepted without a signature (local demo only)');
    }
    registerInboundRoutes(ctx, inboundVerifier(config.allow_unsigned ? undefined : config.inbound_secret));
    const replies = replySink(config, ctx);

    return {
      // Inbound is push-only (the routes above), so there is nothing to watch.
      start() {},
      async stop() {
        await replies.close();
      },
      deliver(event, thread, context) {
        return replies.deliver(event, thread, context?.signal);
      },
      health() {
        return { ok: true, details: replies.details() };
      },
    };
  },
});
