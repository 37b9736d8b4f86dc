/**
 * Agent replies out as ticket notes, through any `TicketAdapter`: an agent's
 * `message_created` becomes a note (public or private per `notes`) written by
 * the gateway's own user, headed with the agent's name, with the agent's
 * files uploaded and attached in the same change (`note-files.ts`; a file
 * not attached is named under the text); a reply suggestion becomes a
 * private note only with `suggestions_as_private_notes`.
 *
 * At-least-once: every note carries a short reference derived from the
 * platform's id of the message (or suggestion) in its first line ("ref
 * <12 hex>"); a retry (attempt > 1) first looks for an own note with that
 * reference on the ticket and, when found, reports it instead of writing it
 * twice. The same text sent twice is two messages, two references, two notes.
 * A note meant to be private that the ticket system stored as public (Redmine
 * ignores `private_notes` for a user without "Mark notes as private") is
 * dead-lettered loudly (TG_TICKET_NOTE_NOT_PRIVATE) instead of reported as
 * delivered. Refusals (401, 403, 404) dead-letter with the system's answer;
 * 429/503 with Retry-After wait as asked; anything else is retried.
 */
import { createHash } from 'node:crypto';
import {
  PermanentDeliveryError,
  RetryLaterError,
  TransientDeliveryError,
  type DeliverContext,
  type AttachmentFetcher,
  type DeliverResult,
  type Logger,
  type Thread,
  type WebhookEvent,
} from '../../src/connector/api.ts';
import type { FileLimits } from './kept-files.ts';
import { noteFiles } from './note-files.ts';
import { messageOf } from './poller-progress.ts';
import { TicketSystemError, type TicketAdapter, type TicketEntry } from './ticket-adapter.ts';

export class TicketNoteRefusedError extends PermanentDeliveryError {
  override readonly code = 'TG_TICKET_NOTE_REFUSED';
  readonly status: number | undefined;

  constructor(message: string, status: number | undefined) {
    super(message);
    this.status = status;
  }
}

/** A private note was stored as public: the API key's user may not mark notes private. */
export class TicketNoteNotPrivateError extends PermanentDeliveryError {
  override readonly code = 'TG_TICKET_NOTE_NOT_PRIVATE';
}

export class TicketNoteFailedError extends TransientDeliveryError {
  override readonly code = 'TG_TICKET_NOTE_FAILED';
}

export interface NoteWriterOptions {
  notes: 'public' | 'private';
  suggestionsAsPrivateNotes: boolean;
  /** The settings key of `suggestionsAsPrivateNotes`, named when a suggestion is skipped. */
  suggestionsKey?: string;
  logger?: Logger;
  /** Downloads the agent's files from the platform (`ctx.attachments`). */
  fetcher: AttachmentFetcher;
  /** Per file and per note (`attachments` of the settings). */
  files: FileLimits;
}

/** The short, stable reference of a platform message or suggestion that its note carries. */
export function noteRef(kind: string, platformId: string): string {
  return createHash('sha256').update(`${kind}:${platformId}`).digest('hex').slice(0, 12);
}

/** The note text of an agent reply: who wrote it (and the reference), then what. */
export function agentNote(agentName: string | null | undefined, text: string, ref: string, markup: 'markdown' | 'plain' = 'markdown'): string {
  const name = agentName?.trim() || 'Agent';
  return `${markup === 'plain' ? name : `**${name}**`} (via chat, ref ${ref}):\n\n${lf(text)}`;
}

export function suggestionNote(text: string, ref: string): string {
  return `Suggested reply (not sent to the customer, ref ${ref}):\n\n${lf(text)}`;
}

const lf = (text: string) => text.replace(/\r\n?/g, '\n');
/** Whether an entry's text is the note of this reference (its first line names it). */
const carries = (entry: TicketEntry, ref: string) => (entry.text.split('\n', 1)[0] ?? '').includes(`ref ${ref})`);

export class NoteWriter {
  readonly #adapter: TicketAdapter;
  readonly #options: NoteWriterOptions;
  suggestionsIgnored = 0;

  constructor(adapter: TicketAdapter, options: NoteWriterOptions) {
    this.#adapter = adapter;
    this.#options = options;
  }

  async deliver(event: WebhookEvent, thread: Thread | undefined, context: DeliverContext): Promise<DeliverResult> {
    let note: { text: string; private: boolean; ref: string; files: readonly unknown[] };
    if (event.event_type === 'message_created') {
      const agent = event.message.sender_public_name ?? event.message.sender_name;
      const ref = noteRef('message', event.message.id);
      note = { text: agentNote(agent, event.message.message, ref, this.#adapter.noteMarkup), private: this.#options.notes === 'private', ref, files: event.message.attachments };
    } else if (this.#options.suggestionsAsPrivateNotes) {
      const ref = noteRef('suggestion', event.reply_suggestion.id);
      note = { text: suggestionNote(event.reply_suggestion.suggestion, ref), private: true, ref, files: [] };
    } else {
      this.suggestionsIgnored += 1;
      return { skipped: `reply suggestions are not written as notes (${this.#options.suggestionsKey ?? 'suggestions_as_private_notes'} is off)` };
    }
    const ticketId = thread ? this.#adapter.ticketIdOf(thread.key) : undefined;
    if (ticketId === undefined) throw new TicketNoteRefusedError(`no ${this.#adapter.system} ticket is known for thread ${event.thread_id}`, undefined);
    let written: TicketEntry | undefined;
    try {
      if (context.attempt > 1) written = await this.#findOwnNote(ticketId, note.ref, context.signal);
      if (written === undefined) {
        // Only now (a retry that found its note uploads nothing): the files, then text and files in one change.
        const files = await noteFiles(note.files, { private: note.private, limits: this.#options.files, fetcher: this.#options.fetcher, adapter: this.#adapter, signal: context.signal });
        const text = files.notSent.length > 0 ? `${note.text}\n\n${files.notSent.join('\n')}` : note.text;
        if (files.notSent.length > 0) this.#options.logger?.warn({ ticket: ticketId, not_sent: files.notSent }, 'note goes without some of its files');
        const { entryId } = await this.#adapter.addNote(ticketId, { text, private: note.private, uploads: files.uploads }, context.signal);
        // Read back: the id (Redmine does not tell it) and whether it was stored as asked.
        written = await this.#findOwnNote(ticketId, note.ref, context.signal);
        if (written === undefined && entryId !== undefined) return { externalId: entryId };
      }
    } catch (err) {
      throw this.#classify(err, ticketId);
    }
    if (written !== undefined && note.private && !written.private) {
      const hint = this.#adapter.privateNoteHint ?? "the gateway's user may not write private notes";
      const message = `the private note ${written.id} on ticket ${ticketId} was stored as public by ${this.#adapter.system}: ${hint}`;
      this.#options.logger?.error({ ticket: ticketId, entry: written.id }, message);
      throw new TicketNoteNotPrivateError(message);
    }
    return { externalId: written?.id };
  }

  /** The newest own note on the ticket that carries this reference. */
  async #findOwnNote(ticketId: string, ref: string, signal: AbortSignal): Promise<TicketEntry | undefined> {
    const ticket = await this.#adapter.readTicket(ticketId, signal);
    return ticket.entries.filter((e) => this.#adapter.isOwnEntry(e) && carries(e, ref)).at(-1);
  }

  #classify(err: unknown, ticketId: string): Error {
    if (!(err instanceof TicketSystemError)) return err as Error;
    const said = messageOf(err);
    if (err.refused || err.status === 422) return new TicketNoteRefusedError(`note on ticket ${ticketId} refused: ${said}`, err.status);
    if ((err.status === 429 || err.status === 503) && err.retryAfterMs !== undefined) {
      return new RetryLaterError(`${this.#adapter.system} asked to wait: ${said}`, err.retryAfterMs, { cause: err });
    }
    return new TicketNoteFailedError(`note on ticket ${ticketId} failed: ${said}`, { cause: err });
  }
}
