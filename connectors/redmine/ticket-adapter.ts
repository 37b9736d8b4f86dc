/**
 * The seam between a ticket system and the gateway. The poller
 * (`ticket-poller.ts`) and the note writer (`note-writer.ts`) know only this
 * interface; `redmine-adapter.ts` implements it over Redmine's REST API, and a
 * Zendesk, Jira Service Management or Zammad adapter would be one more file
 * implementing it (plus its tests). See docs/connectors.md, "Ticket systems".
 *
 *   listChanges(since) ──▶ for each changed ticket: readTicket(id) ──▶ entries after the last one handled
 *   addNote(id, text)  ◀── an agent reply
 *
 * Every call takes the gateway's stop signal and throws a `TicketSystemError`
 * (below) when the ticket system refuses or cannot be reached.
 */

/** Who wrote something in the ticket system. */
export interface TicketPerson {
  id: string;
  name: string;
}

/** One entry of a ticket's history, oldest first (a Redmine journal, a Zendesk comment or audit). */
export interface TicketEntry {
  /** Stable id of the entry in the ticket system, unique across tickets. */
  id: string;
  /** Increases along a ticket's history: the poller keeps the last one handled per ticket. */
  seq: number;
  author: TicketPerson;
  /** When it was written: an ISO 8601 timestamp (compared with `ChangeList.nextSince`). */
  createdAt: string;
  /** The note's text (LF line ends); empty when the entry only changed fields. */
  text: string;
  /** Seen only by the ticket system's staff: never posted to the chat. */
  private: boolean;
  /** Whether the entry closed the ticket (`closed`), reopened it (`reopened`) or neither. */
  statusChange: 'closed' | 'reopened' | null;
}

/** A ticket with its history. */
export interface Ticket {
  id: string;
  /** Where a person opens it in a browser. */
  webUrl: string;
  subject: string;
  description: string;
  author: TicketPerson;
  /** When it was opened: an ISO 8601 timestamp (compared with `ChangeList.nextSince`). */
  createdAt: string;
  /** Last change, in the ticket system's clock and format (compared only for equality). */
  updatedAt: string;
  /**
   * Whether a change after this read is sure to carry another `updatedAt`
   * (the system's clock was far enough past `updatedAt` when it answered).
   * False when `updatedAt` is coarse (Redmine: whole seconds) and the read was
   * too soon after it: the poller then reads the ticket again even when it is
   * listed with the same `updatedAt`.
   */
  settled: boolean;
  closed: boolean;
  /** Seen only by some of the ticket system's users (a Redmine private issue): nothing of it is posted. */
  private: boolean;
  entries: TicketEntry[];
}

/** A ticket named by `listChanges`. */
export interface TicketChange {
  id: string;
  /** As `Ticket.updatedAt`: when unchanged since a settled read, the ticket is not read again. */
  updatedAt: string;
}

export interface ChangeList {
  /** Tickets changed at or after `since`, in the order they changed (ties in any order). */
  changes: TicketChange[];
  /**
   * Where the next round may start: the ticket system's clock when this list
   * was taken, minus whatever overlap the system needs so that a change that
   * committed late is still listed. Passed back as `since`. An ISO 8601
   * timestamp: the poller compares it with `createdAt`s (a ticket created
   * before the `since` it is first listed with existed before the gateway
   * watched it).
   */
  nextSince: string;
}

export interface TicketAdapter {
  /** A short name of the system for logs and errors ("Redmine"). */
  readonly system: string;
  /** The host (no credentials) for logs and health. */
  readonly host: string;
  /**
   * Checks the address and credentials and learns who the gateway is there.
   * Throws a `TicketSystemError` with the system's answer (401: the key is refused).
   */
  connect(signal: AbortSignal): Promise<TicketPerson>;
  /** The tickets changed since `since` (all pages); `since` undefined means "from now on". */
  listChanges(since: string | undefined, signal: AbortSignal): Promise<ChangeList>;
  readTicket(id: string, signal: AbortSignal): Promise<Ticket>;
  /** Adds a note as the gateway's own user; resolves with the new entry's id when the system tells it. */
  addNote(ticketId: string, note: { text: string; private: boolean }, signal: AbortSignal): Promise<{ entryId: string | undefined }>;
  /** Whether an entry is the gateway's own (an agent reply it wrote): never posted back. */
  isOwnEntry(entry: TicketEntry): boolean;
  /** The connector's thread key of a ticket (stable, unique across systems): `<host>/issues/<id>`. */
  threadKey(ticketId: string): string;
  /** The ticket id of a thread key made by `threadKey`, or undefined. */
  ticketIdOf(threadKey: string): string | undefined;
  /** A stable visitor id of a person of this system. */
  senderId(person: TicketPerson): string;
}

/** A refusal or failure of the ticket system; `status` is the HTTP status (undefined: not reached). */
export class TicketSystemError extends Error {
  readonly code: string = 'TG_TICKET_SYSTEM_FAILED';
  readonly status: number | undefined;
  /** The system's own answer (an error list), shortened; never a credential. */
  readonly answer: string | undefined;
  /** Milliseconds from a `Retry-After` header. */
  readonly retryAfterMs: number | undefined;
  /** The system answered, but not in the shape expected (a schema failure). */
  readonly malformed: boolean;

  constructor(message: string, options: { status?: number; answer?: string; retryAfterMs?: number; malformed?: boolean; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.status = options.status;
    this.answer = options.answer;
    this.retryAfterMs = options.retryAfterMs;
    this.malformed = options.malformed === true;
  }

  /** 401, 403 and 404: asking again will get the same answer. */
  get refused(): boolean {
    return this.status === 401 || this.status === 403 || this.status === 404;
  }
}
