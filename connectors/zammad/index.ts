/**
 * The Zammad connector: a Zammad group as a ticket queue on the platform.
 *
 *   new ticket / public article ──search + read REST──▶ ticket-poller ──▶ ctx.submit
 *     their files               ──download───────────▶ kept-files ─────▶ ctx.files (a link under the text)
 *   internal article            ──────────────────────▶ recorded as skipped (TG_TICKET_PRIVATE_NOTE)
 *   state closed / merged       ──────────────────────▶ ticket-poller ──▶ ctx.close
 *   public article (email/note) ◀── note-writer ◀── deliver(message_created), with the agent's files
 *   trigger webhook (optional)  ──POST /connectors/<name>/webhook──▶ wakes the poller early
 *
 * Settings: `config.ts`. The ticket seam (poller, note writer, files) is
 * `../ticket/`; Zammad's side of it is `zammad-adapter.ts`.
 */
import { defineConnector, type ConnectorInstance } from '../../src/connector/api.ts';
import { ticketConnectorInstance } from '../ticket/ticket-connector.ts';
import { withTicketWebhook } from '../ticket/ticket-webhook.ts';
import { ZammadConnectorConfig } from './config.ts';
import { ZammadAdapter } from './zammad-adapter.ts';
import { zammadWebhook } from './zammad-webhook.ts';

export { ZammadConnectorConfig } from './config.ts';

export default defineConnector({
  type: 'zammad',
  configSchema: ZammadConnectorConfig,

  create(config, ctx): ConnectorInstance {
    const instance = ticketConnectorInstance(ctx, {
      adapter: new ZammadAdapter(config, { logger: ctx.logger }),
      pollSeconds: config.poll_seconds,
      files: config.attachments,
      notes: 'public',
      suggestionsAsPrivateNotes: config.suggestions_as_internal_notes,
      suggestionsKey: 'suggestions_as_internal_notes',
      details: { group: config.group, replies: config.replies, webhook: config.webhook_secret !== undefined },
    });
    return config.webhook_secret === undefined ? instance : withTicketWebhook(instance, ctx, zammadWebhook(config.webhook_secret));
  },
});
