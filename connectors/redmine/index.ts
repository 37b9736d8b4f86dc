/**
 * The Redmine connector: a ticket queue on the platform.
 *
 *   new issue / public note ──poll REST API──▶ ticket-poller ──▶ ctx.submit
 *     their files           ──download───────▶ kept-files ─────▶ ctx.files (a link under the text)
 *   issue closed            ──────────────────▶ ticket-poller ──▶ ctx.close
 *   ticket note             ◀── note-writer ◀── deliver(message_created)
 *     its files             ◀── note-files (upload) ◀── ctx.attachments (the agent's files)
 *
 * Settings: `config.ts`. The ticket seam (poller, note writer, files) is
 * `../ticket/`; Redmine's side of it is `redmine-adapter.ts` (HTTP in
 * `redmine-http.ts`).
 */
import { defineConnector, type ConnectorInstance } from '../../src/connector/api.ts';
import { ticketConnectorInstance } from '../ticket/ticket-connector.ts';
import { RedmineConnectorConfig } from './config.ts';
import { RedmineAdapter } from './redmine-adapter.ts';

export { RedmineConnectorConfig } from './config.ts';

export default defineConnector({
  type: 'redmine',
  configSchema: RedmineConnectorConfig,

  create(config, ctx): ConnectorInstance {
    return ticketConnectorInstance(ctx, {
      adapter: new RedmineAdapter(config, { logger: ctx.logger }),
      pollSeconds: config.poll_seconds,
      files: config.attachments,
      notes: config.notes,
      suggestionsAsPrivateNotes: config.suggestions_as_private_notes,
      suggestionsKey: 'suggestions_as_private_notes',
      details: { project: config.project },
    });
  },
});
