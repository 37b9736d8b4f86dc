/**
 * The Redmine connector: a ticket queue on the platform.
 *
 *   new issue / public note ──poll REST API──▶ ticket-poller ──▶ ctx.submit
 *     their files           ──download───────▶ kept-files ─────▶ ctx.files (a link under the text)
 *   issue closed            ──────────────────▶ ticket-poller ──▶ ctx.close
 *   ticket note             ◀── note-writer ◀── deliver(message_created)
 *     its files             ◀── note-files (upload) ◀── ctx.attachments (the agent's files)
 *
 * Settings: `config.ts`. The ticket-system seam: `ticket-adapter.ts`;
 * Redmine's side of it: `redmine-adapter.ts` (HTTP in `redmine-http.ts`).
 * A wrong url or key does not stop the gateway: the poller logs the start-up
 * error, reports the connector unhealthy and keeps trying with backoff.
 */
import { defineConnector, type ConnectorInstance } from '../../src/connector/api.ts';
import { RedmineConnectorConfig } from './config.ts';
import { NoteWriter } from './note-writer.ts';
import { RedmineAdapter } from './redmine-adapter.ts';
import { TicketPoller } from './ticket-poller.ts';

export { RedmineConnectorConfig } from './config.ts';

export default defineConnector({
  type: 'redmine',
  configSchema: RedmineConnectorConfig,

  create(config, ctx): ConnectorInstance {
    const adapter = new RedmineAdapter(config, { logger: ctx.logger });
    const poller = new TicketPoller(adapter, ctx, config.poll_seconds, config.attachments);
    const writer = new NoteWriter(adapter, {
      notes: config.notes,
      suggestionsAsPrivateNotes: config.suggestions_as_private_notes,
      logger: ctx.logger,
      fetcher: ctx.attachments,
      files: config.attachments,
    });
    return {
      start() {},
      // The ticket queue is read by one replica at a time; its progress goes to the state the poll is given.
      poll: ({ signal, state }) => poller.run(signal, state),
      stop() {},
      deliver: (event, thread, context) => writer.deliver(event, thread, context),
      health() {
        const s = poller.status;
        return {
          ok: s.connected && s.lastError === null,
          details: {
            host: adapter.host,
            project: config.project,
            connected: s.connected,
            user: s.user,
            polls: s.polls,
            last_poll_at: s.lastPollAt,
            last_error: s.lastError,
            last_error_at: s.lastErrorAt,
            consecutive_failures: s.consecutiveFailures,
            given_up: s.givenUp,
            reply_suggestions_ignored: writer.suggestionsIgnored,
          },
        };
      },
    };
  },
});
