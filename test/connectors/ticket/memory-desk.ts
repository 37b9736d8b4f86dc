/**
 * A second, in-memory ticket system behind the `TicketAdapter` seam (what a
 * Zendesk or Zammad adapter would give the poller): tickets with entries and
 * files, a clock (seconds, ISO times), and failures to order. For the
 * system-neutral poller's tests and the ticket-adapter contract's own;
 * Redmine's and Request Tracker's behaviour is tested against the real ones.
 */
import {
  TicketAttachmentTooLargeError,
  TicketAttachmentUnavailableError,
  TicketSystemError,
  type ChangeList,
  type Ticket,
  type TicketAdapter,
  type TicketAttachment,
  type TicketEntry,
  type TicketPerson,
  type TicketUpload,
} from '../../../connectors/ticket/ticket-adapter.ts';

export const CUSTOMER: TicketPerson = { id: 'c1', name: 'Cora Customer' };
export const GATEWAY: TicketPerson = { id: 'gw', name: 'Gateway' };
const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

/** A tiny help desk in memory: tickets with entries, a clock (seconds, ISO times), and failures to order. */
export class MemoryDesk implements TicketAdapter {
  readonly system = 'MemoryDesk';
  readonly host = 'desk.test';
  readonly tickets = new Map<string, Ticket>();
  reads = 0;
  failReadOf = new Set<string>();
  /** Reads of these tickets answer 500 (the system fails on that one ticket). */
  brokenReadOf = new Set<string>();
  goneOnRead = new Set<string>();
  /** Reads of these tickets are not settled (made in the second of their last change). */
  unsettled = new Set<string>();
  /** The bytes of each file by id (`file`); a file without bytes here is gone (404). */
  readonly files = new Map<string, Buffer>();
  /** Downloads of these files fail without an answer, once per entry in the set. */
  failDownloadOf = new Set<string>();
  downloads = 0;
  #clock = 1_000;
  #seq = 0;
  #fileId = 0;

  /** A file of the desk (listed with its real size unless `listedSize`), to attach to a ticket or entry. */
  file(filename: string, content: Buffer, options: { listedSize?: number; gone?: boolean } = {}): TicketAttachment {
    const id = `f${++this.#fileId}`;
    if (!options.gone) this.files.set(id, content);
    return { id, filename, size: options.listedSize ?? content.length, contentType: 'application/octet-stream', url: `https://desk.test/files/${id}` };
  }

  open(id: string, subject: string, description: string, extra: Partial<Ticket> = {}): void {
    const at = iso(++this.#clock);
    this.tickets.set(id, { id, webUrl: `https://desk.test/t/${id}`, subject, description, author: CUSTOMER, createdAt: at, updatedAt: at, settled: true, closed: false, private: false, attachments: [], entries: [], ...extra });
  }

  add(id: string, entry: Partial<TicketEntry>, options: { sameSecond?: boolean } = {}): void {
    const ticket = this.tickets.get(id)!;
    const seq = ++this.#seq;
    if (!options.sameSecond) this.#clock += 1;
    ticket.entries.push({ id: `e${seq}`, seq, author: CUSTOMER, createdAt: iso(this.#clock), text: '', private: false, statusChange: null, attachments: [], ...entry });
    if (entry.statusChange) ticket.closed = entry.statusChange === 'closed';
    ticket.updatedAt = iso(this.#clock);
  }

  /** Lets time pass without changes. */
  tick(seconds = 1): void {
    this.#clock += seconds;
  }

  async connect(): Promise<TicketPerson> {
    return GATEWAY;
  }

  async listChanges(since: string | undefined): Promise<ChangeList> {
    if (since === undefined) return { changes: [], nextSince: iso(this.#clock) };
    const from = Date.parse(since);
    const changes = [...this.tickets.values()].filter((t) => Date.parse(t.updatedAt) >= from).sort((a, b) => Date.parse(a.updatedAt) - Date.parse(b.updatedAt));
    return { changes: changes.map((t) => ({ id: t.id, updatedAt: t.updatedAt })), nextSince: iso(this.#clock - 1) };
  }

  async readTicket(id: string): Promise<Ticket> {
    this.reads += 1;
    if (this.goneOnRead.has(id)) throw new TicketSystemError('gone', { status: 404 });
    if (this.brokenReadOf.has(id)) throw new TicketSystemError('internal error', { status: 500 });
    if (this.failReadOf.delete(id)) throw new TicketSystemError('connection reset');
    return { ...structuredClone(this.tickets.get(id)!), settled: !this.unsettled.has(id) };
  }

  async downloadAttachment(attachment: TicketAttachment, maxBytes: number): Promise<Buffer> {
    this.downloads += 1;
    if (this.failDownloadOf.delete(attachment.id)) throw new TicketSystemError('connection reset while downloading');
    const content = this.files.get(attachment.id);
    if (content === undefined) throw new TicketAttachmentUnavailableError('no such file', { status: 404 });
    if (content.length > maxBytes) throw new TicketAttachmentTooLargeError(`over ${maxBytes} bytes`);
    return content;
  }

  async uploadAttachment(file: { filename: string; contentType: string; content?: Buffer }): Promise<TicketUpload> {
    const token = file.content === undefined ? `t-${file.filename}` : this.file(file.filename, file.content).id;
    return { token, filename: file.filename, contentType: file.contentType };
  }

  /** Written as the gateway, with the files uploaded for it (uploads made without bytes are left out). */
  async addNote(ticketId: string, note: { text: string; private: boolean; uploads?: readonly TicketUpload[] }): Promise<{ entryId: string | undefined }> {
    const attachments = (note.uploads ?? []).filter((u) => this.files.has(u.token)).map((u) => ({ id: u.token, filename: u.filename, size: this.files.get(u.token)!.length, contentType: u.contentType, url: `https://desk.test/files/${u.token}` }));
    this.add(ticketId, { author: GATEWAY, text: note.text, private: note.private, attachments });
    return { entryId: this.tickets.get(ticketId)!.entries.at(-1)!.id };
  }

  isOwnEntry(entry: TicketEntry): boolean {
    return entry.author.id === GATEWAY.id;
  }

  threadKey(ticketId: string): string {
    return `desk.test/t/${ticketId}`;
  }

  ticketIdOf(threadKey: string): string | undefined {
    const id = threadKey.startsWith('desk.test/t/') ? threadKey.slice('desk.test/t/'.length) : '';
    return /^[^/]+$/.test(id) ? id : undefined;
  }

  senderId(person: TicketPerson): string {
    return `desk.test/u/${person.id}`;
  }
}
