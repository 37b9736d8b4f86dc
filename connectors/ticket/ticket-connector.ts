/**
 * A ticket connector's instance from its adapter: the poller reads the
 * system, the note writer answers deliveries, and health reports both. Each
 * ticket system's `index.ts` parses its settings, builds its adapter and
 * calls this:
 *
 *   create(config, ctx) {
 *     const adapter = new MyDeskAdapter(config, { logger: ctx.logger });
 *     return ticketConnectorInstance(ctx, { adapter, pollSeconds: config.poll_seconds, files: config.attachments,
 *       notes: 'public', suggestionsAsPrivateNotes: false, suggestionsKey: 'suggestions_as_private_notes', details: { queue: config.queue } });
 *   }
 *
 * A wrong url or credential does not stop the gateway: the poller logs the
 * start-up error, reports the connector unhealthy and keeps trying with backoff.
 */
import type { ConnectorContext, ConnectorInstance } from '../../src/connector/api.ts';
import type { FileLimits } from './kept-files.ts';
import { NoteWriter } from './note-writer.ts';
import type { TicketAdapter } from './ticket-adapter.ts';
import { TicketPoller } from './ticket-poller.ts';

export interface TicketConnectorOptions {
  adapter: TicketAdapter;
  pollSeconds: number;
  /** `attachments` of the settings: per file and per message, both ways. */
  files: FileLimits;
  /** Whether agent replies become public entries (the requester sees them) or private ones. */
  notes: 'public' | 'private';
  /** Whether the platform's reply suggestions are written as private entries (otherwise only counted). */
  suggestionsAsPrivateNotes: boolean;
  /** The settings key of `suggestionsAsPrivateNotes`, named when a suggestion is skipped. */
  suggestionsKey: string;
  /** The adapter's own health details (its project, its queue). */
  details?: Record<string, unknown>;
}

/** The instance, and `wake` to start the next poll round now (for a connector whose system can send a webhook), reading the ticket it names. */
export type TicketConnectorInstance = ConnectorInstance & { wake(ticketId?: string): void };

export function ticketConnectorInstance(ctx: ConnectorContext, options: TicketConnectorOptions): TicketConnectorInstance {
  const { adapter } = options;
  const poller = new TicketPoller(adapter, ctx, options.pollSeconds, options.files);
  const writer = new NoteWriter(adapter, {
    notes: options.notes,
    suggestionsAsPrivateNotes: options.suggestionsAsPrivateNotes,
    suggestionsKey: options.suggestionsKey,
    logger: ctx.logger,
    fetcher: ctx.attachments,
    files: options.files,
  });
  return {
    start() {},
    // The ticket queue is read by one replica at a time; its progress goes to the state the poll is given.
    poll: ({ signal, state }) => poller.run(signal, state),
    stop() {},
    wake: (ticketId) => poller.wake(ticketId),
    deliver: (event, thread, context) => writer.deliver(event, thread, context),
    health() {
      const s = poller.status;
      return {
        ok: s.connected && s.lastError === null,
        details: {
          host: adapter.host,
          ...options.details,
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
}
