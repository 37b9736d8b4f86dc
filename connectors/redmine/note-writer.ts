/**
 * Agent replies out as ticket notes, through any `TicketAdapter`: an agent's
 * `message_created` becomes a note (public or private per `notes`) written by
 * the gateway's own user, headed with the agent's name; a reply suggestion
 * becomes a private note only with `suggestions_as_private_notes`.
 *
 * At-least-once: a retry (attempt > 1) first looks for an own note with the
 * very same text on the ticket and, when found, reports it instead of writing
 * it twice. Refusals (401, 403, 404) dead-letter with the system's answer;
 * 429/503 with Retry-After wait as asked; anything else is retried.
 */
import {
  PermanentDeliveryError,
  RetryLaterError,
  TransientDeliveryError,
  type DeliverContext,
  type DeliverResult,
  type Thread,
  type WebhookEvent,
} from '../../src/connector/api.ts';
import { TicketSystemError, type TicketAdapter } from './ticket-adapter.ts';

export class TicketNoteRefusedError extends PermanentDeliveryError {
  override readonly code = 'TG_TICKET_NOTE_REFUSED';
  readonly status: number | undefined;

  constructor(message: string, status: number | undefined) {
    super(message);
    this.status = status;
  }
}

export class TicketNoteFailedError extends TransientDeliveryError {
  override readonly code = 'TG_TICKET_NOTE_FAILED';
}

export interface NoteWriterOptions {
  notes: 'public' | 'private';
  suggestionsAsPrivateNotes: boolean;
}

/** The note text of an agent reply: who wrote it, then what. */
export function agentNote(agentName: string | null | undefined, text: string): string {
  const name = agentName?.trim() || 'Agent';
  return `**${name}** (via chat):\n\n${text}`;
}

export function suggestionNote(text: string): string {
  return `Suggested reply (not sent to the customer):\n\n${text}`;
}

export class NoteWriter {
  readonly #adapter: TicketAdapter;
  readonly #options: NoteWriterOptions;
  suggestionsIgnored = 0;

  constructor(adapter: TicketAdapter, options: NoteWriterOptions) {
    this.#adapter = adapter;
    this.#options = options;
  }

  async deliver(event: WebhookEvent, thread: Thread | undefined, context: DeliverContext): Promise<DeliverResult> {
    let note: { text: string; private: boolean };
    if (event.event_type === 'message_created') {
      const agent = event.message.sender_public_name ?? event.message.sender_name;
      note = { text: agentNote(agent, event.message.message), private: this.#options.notes === 'private' };
    } else if (this.#options.suggestionsAsPrivateNotes) {
      note = { text: suggestionNote(event.reply_suggestion.suggestion), private: true };
    } else {
      this.suggestionsIgnored += 1;
      return {};
    }
    const ticketId = thread ? this.#adapter.ticketIdOf(thread.key) : undefined;
    if (ticketId === undefined) throw new TicketNoteRefusedError(`no ${this.#adapter.system} ticket is known for thread ${event.thread_id}`, undefined);
    try {
      if (context.attempt > 1) {
        const earlier = await this.#findOwnNote(ticketId, note.text, context.signal);
        if (earlier) return { externalId: earlier };
      }
      const { entryId } = await this.#adapter.addNote(ticketId, note, context.signal);
      return { externalId: entryId ?? (await this.#findOwnNote(ticketId, note.text, context.signal)) };
    } catch (err) {
      throw this.#classify(err, ticketId);
    }
  }

  /** The id of the newest own note on the ticket with exactly this text. */
  async #findOwnNote(ticketId: string, text: string, signal: AbortSignal): Promise<string | undefined> {
    const ticket = await this.#adapter.readTicket(ticketId, signal);
    const own = ticket.entries.filter((e) => this.#adapter.isOwnEntry(e) && e.text.trim() === text.trim());
    return own[own.length - 1]?.id;
  }

  #classify(err: unknown, ticketId: string): Error {
    if (!(err instanceof TicketSystemError)) return err as Error;
    const said = err.answer ? `${err.message}: ${err.answer}` : err.message;
    if (err.refused || err.status === 422) return new TicketNoteRefusedError(`note on ticket ${ticketId} refused: ${said}`, err.status);
    if ((err.status === 429 || err.status === 503) && err.retryAfterSeconds !== undefined) {
      return new RetryLaterError(`${this.#adapter.system} asked to wait: ${said}`, err.retryAfterSeconds * 1000, { cause: err });
    }
    return new TicketNoteFailedError(`note on ticket ${ticketId} failed: ${said}`, { cause: err });
  }
}
