/**
 * The seam between a ticket system and the gateway. The poller
 * (`ticket-poller.ts`) and the note writer (`note-writer.ts`) know only this
 * interface; `../redmine/redmine-adapter.ts` implements it over Redmine's
 * REST API; another help desk is one more adapter implementing it (plus its
 * tests), wired by `ticket-connector.ts`. See docs/ticket-seam.md.
 *
 *   listChanges(since) ──▶ for each changed ticket: readTicket(id) ──▶ entries after the last one handled
 *                                                   downloadAttachment(file) ──▶ the bytes of their files
 *   addNote(id, text, uploads) ◀── uploadAttachment(file) ◀── an agent reply and its files
 *
 * Every call takes the gateway's stop signal and throws a `TicketSystemError`
 * (below) when the ticket system refuses or cannot be reached.
 */

/** Who wrote something in the ticket system. */
export interface TicketPerson {
  id: string;
  name: string;
  /** The person's e-mail address, when the system tells it (a visitor variable of the opening message). */
  email?: string;
}

/** A file of a ticket (attached when it was opened) or of one of its entries. */
export interface TicketAttachment {
  /** The ticket system's id of the file. */
  id: string;
  filename: string;
  /** In bytes, as the system lists it (the download is capped all the same). */
  size: number;
  /** As the system lists it; application/octet-stream when it names none. */
  contentType: string;
  /** Where the system serves the bytes, as it says (the adapter's download decides whether to use it). */
  url: string;
}

/** A file uploaded to the ticket system, not yet part of a note: `addNote` attaches it. */
export interface TicketUpload {
  /** The system's handle of the upload (Redmine: its upload token). */
  token: string;
  filename: string;
  contentType: string;
  /** The bytes, for a system that takes a note's files with the note itself (Request Tracker): its upload only checks them. */
  content?: Buffer;
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
  /** The files this entry added, in the order they were added. */
  attachments: TicketAttachment[];
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
  /** The files attached when the ticket was opened (they go with the opening message). */
  attachments: TicketAttachment[];
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
  /**
   * Optional: one ticket a webhook named, as a change — read directly, for a
   * system whose listing shows a change late (an export a minute behind, a
   * search index). Undefined when it is not one of the conversations (another
   * queue or group) or is gone. The poller asks it, in the next round, for the
   * named tickets `listChanges` did not list.
   */
  changeOf?(ticketId: string, signal: AbortSignal): Promise<TicketChange | undefined>;
  readTicket(id: string, signal: AbortSignal): Promise<Ticket>;
  /**
   * The bytes of a ticket's file, refused past `maxBytes` (by its announced
   * length or as it arrives: never more is held). Throws
   * `TicketAttachmentUnavailableError` when the system does not hand it out
   * (gone, forbidden), `TicketAttachmentTooLargeError` past `maxBytes`, and a
   * plain `TicketSystemError` for anything that may pass.
   */
  downloadAttachment(attachment: TicketAttachment, maxBytes: number, signal: AbortSignal): Promise<Buffer>;
  /** Uploads a file for the next note; throws `TicketAttachmentRefusedError` when the system refuses that file (too large, a type it does not take). */
  uploadAttachment(file: { filename: string; contentType: string; content: Buffer }, signal: AbortSignal): Promise<TicketUpload>;
  /** Adds a note as the gateway's own user, with the files uploaded for it, in one change; resolves with the new entry's id when the system tells it. */
  addNote(ticketId: string, note: { text: string; private: boolean; uploads?: readonly TicketUpload[] }, signal: AbortSignal): Promise<{ entryId: string | undefined }>;
  /**
   * Whether a private note's files would be shown to everyone who sees the
   * ticket (Redmine 5: yes). When true or absent, a private note gets no
   * files: they are named under its text instead.
   */
  readonly privateNoteFilesArePublic?: boolean;
  /** What to tell the operator when a private note came back public (which permission the gateway's user lacks). */
  readonly privateNoteHint?: string;
  /** How a note's text is marked up: `markdown` (the agent's name in bold; the default) or `plain` (mailed as it is). */
  readonly noteMarkup?: 'markdown' | 'plain';
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

/** The ticket system does not hand a file out (it was deleted, or the gateway's user may not see it): asking again gives the same answer. */
export class TicketAttachmentUnavailableError extends TicketSystemError {
  override readonly code: string = 'TG_TICKET_ATTACHMENT_UNAVAILABLE';
}

/** A file is larger than the download may hold (its announced length, or the bytes as they came). */
export class TicketAttachmentTooLargeError extends TicketSystemError {
  override readonly code: string = 'TG_TICKET_ATTACHMENT_TOO_LARGE';
}

/** The ticket system refused an uploaded file (over its own size limit, a type it does not take): the same file stays refused. */
export class TicketAttachmentRefusedError extends TicketSystemError {
  override readonly code: string = 'TG_TICKET_ATTACHMENT_REFUSED';
}
