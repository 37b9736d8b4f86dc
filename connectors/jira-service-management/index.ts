/**
 * The Jira Service Management connector: a service desk of Jira Cloud as a
 * ticket queue on the platform.
 *
 *   new request / public comment ──poll JQL + REST──▶ ticket-poller ──▶ ctx.submit
 *     their files                ──download─────────▶ kept-files ─────▶ ctx.files (a link under the text)
 *   internal comment             ───────────────────▶ recorded as skipped (TG_TICKET_PRIVATE_NOTE)
 *   status category Done / resolved ────────────────▶ ticket-poller ──▶ ctx.close
 *   public comment               ◀── note-writer ◀── deliver(message_created), with the agent's files
 *
 * Settings: `config.ts`. The ticket seam (poller, note writer, files) is
 * `../ticket/`; Jira's side of it is `jsm-adapter.ts`.
 */
import { defineConnector, type ConnectorInstance } from '../../src/connector/api.ts';
import { ticketConnectorInstance } from '../ticket/ticket-connector.ts';
import { JsmConnectorConfig } from './config.ts';
import { JsmAdapter } from './jsm-adapter.ts';

export { JsmConnectorConfig } from './config.ts';

export default defineConnector({
  type: 'jira-service-management',
  configSchema: JsmConnectorConfig,

  create(config, ctx): ConnectorInstance {
    return ticketConnectorInstance(ctx, {
      adapter: new JsmAdapter(config, { logger: ctx.logger }),
      pollSeconds: config.poll_seconds,
      files: config.attachments,
      notes: config.replies === 'internal' ? 'private' : 'public',
      suggestionsAsPrivateNotes: config.suggestions_as_internal,
      suggestionsKey: 'suggestions_as_internal',
      details: { service_desk: config.service_desk },
    });
  },
});
