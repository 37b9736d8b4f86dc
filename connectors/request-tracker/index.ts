/**
 * The Request Tracker connector: an RT 5 queue as a ticket queue on the platform.
 *
 *   new ticket / Correspond ──poll REST2──▶ ticket-poller ──▶ ctx.submit
 *     their files           ──download───▶ kept-files ─────▶ ctx.files (a link under the text)
 *   Comment                 ──────────────▶ recorded as skipped (TG_TICKET_PRIVATE_NOTE)
 *   resolved/rejected/deleted ────────────▶ ticket-poller ──▶ ctx.close
 *   correspondence          ◀── note-writer ◀── deliver(message_created), with the agent's files
 *
 * Settings: `config.ts`. The ticket seam (poller, note writer, files) is
 * `../ticket/`; RT's side of it is `rt-adapter.ts`.
 */
import { defineConnector, type ConnectorInstance } from '../../src/connector/api.ts';
import { ticketConnectorInstance } from '../ticket/ticket-connector.ts';
import { RequestTrackerConnectorConfig } from './config.ts';
import { RequestTrackerAdapter } from './rt-adapter.ts';

export { RequestTrackerConnectorConfig } from './config.ts';

export default defineConnector({
  type: 'request-tracker',
  configSchema: RequestTrackerConnectorConfig,

  create(config, ctx): ConnectorInstance {
    return ticketConnectorInstance(ctx, {
      adapter: new RequestTrackerAdapter(config, { logger: ctx.logger }),
      pollSeconds: config.poll_seconds,
      files: config.attachments,
      notes: config.replies === 'comment' ? 'private' : 'public',
      suggestionsAsPrivateNotes: config.suggestions_as_comments,
      suggestionsKey: 'suggestions_as_comments',
      details: { queue: config.queue },
    });
  },
});
