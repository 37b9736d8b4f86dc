/**
 * The Zendesk connector: a Zendesk Support account's tickets as a ticket
 * queue on the platform.
 *
 *   new ticket / public comment ──incremental export──▶ ticket-poller ──▶ ctx.submit
 *     their files               ──content_url─────────▶ kept-files ─────▶ ctx.files (a link under the text)
 *   internal note               ──────────────────────▶ recorded as skipped (TG_TICKET_PRIVATE_NOTE)
 *   solved / closed             ──────────────────────▶ ticket-poller ──▶ ctx.close
 *   public reply (or note)      ◀── note-writer ◀── deliver(message_created), with the agent's files (Uploads API)
 *   webhook (optional)          ──POST /connectors/<name>/webhook──▶ wakes the poller early
 *
 * Settings: `config.ts`. The ticket seam (poller, note writer, files) is
 * `../ticket/`; Zendesk's side of it is `zendesk-adapter.ts`.
 */
import { defineConnector, type ConnectorInstance } from '../../src/connector/api.ts';
import { ticketConnectorInstance } from '../ticket/ticket-connector.ts';
import { withTicketWebhook } from '../ticket/ticket-webhook.ts';
import { ZendeskConnectorConfig } from './config.ts';
import { ZendeskAdapter } from './zendesk-adapter.ts';
import { zendeskWebhook } from './zendesk-webhook.ts';

export { ZendeskConnectorConfig } from './config.ts';

export default defineConnector({
  type: 'zendesk',
  configSchema: ZendeskConnectorConfig,

  create(config, ctx): ConnectorInstance {
    const instance = ticketConnectorInstance(ctx, {
      adapter: new ZendeskAdapter(config),
      pollSeconds: config.poll_seconds,
      files: config.attachments,
      notes: config.replies === 'internal' ? 'private' : 'public',
      suggestionsAsPrivateNotes: config.suggestions_as_internal_notes,
      suggestionsKey: 'suggestions_as_internal_notes',
      details: { brand: config.brand ?? null, group: config.group ?? null, webhook: config.webhook_secret !== undefined },
    });
    return config.webhook_secret === undefined ? instance : withTicketWebhook(instance, ctx, zendeskWebhook(config.webhook_secret));
  },
});
