/**
 * The `TicketAdapter` for Request Tracker 5 over REST2. A ticket of the
 * configured queue is a conversation; its Correspond and Comment
 * transactions are its entries (rt-ticket.ts).
 *
 * Changes are found with TicketSQL on `LastUpdated`, in order, keyset-paged
 * as Redmine's are. TicketSQL reads a date in the gateway user's own time
 * zone, which REST2 does not tell; a relative bound (`LastUpdated >= '-N
 * seconds'`) is read against RT's own clock instead, so N is counted from
 * RT's clock as its `Date` headers tell it (rt-http.ts), a few seconds wider,
 * and the UTC `LastUpdated` of each ticket listed decides. A deleted ticket
 * never shows in a ticket search: its Status transaction to `deleted` is
 * searched for in the same window.
 *
 * Replies are written as the gateway's user, with their files in the same
 * transaction (REST2's `Attachments`); the answer's `Location` names the
 * transaction made.
 */
import { KeyedTicketAdapter } from '../ticket/ticket-keys.ts';
import type { Logger } from '../../src/connector/api.ts';
import type { RequestTrackerConnectorConfig } from './config.ts';
import { TicketAttachmentTooLargeError, TicketAttachmentUnavailableError, TicketSystemError, type ChangeList, type Ticket, type TicketAdapter, type TicketAttachment, type TicketPerson, type TicketUpload } from '../ticket/ticket-adapter.ts';
import { parseAnswer } from '../ticket/ticket-http.ts';
import { RtHttp } from './rt-http.ts';
import { RtMessages, type RtMessage } from './rt-messages.ts';
import { Part, Queue, RtTicket, TicketList, TransactionList } from './rt-schemas.ts';
import { READ_TYPES, ticketOf } from './rt-ticket.ts';
import { RtUsers } from './rt-users.ts';

/** Tickets whose change committed this long after their `LastUpdated` are still listed. */
export const OVERLAP_MS = 60_000;
/** A read this long after `LastUpdated` (by RT's clock) is settled: a later change gets a later `LastUpdated`. */
export const SETTLE_MS = 2_000;
/** How much wider than counted the relative bound of a search is (RT's `Date` is to the second). */
const WIDER_S = 5;
const PAGE = 100;

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

export interface RtAdapterOptions {
  logger?: Logger;
  /** Tickets per page of a search (REST2's maximum is 100; smaller in tests). */
  pageSize?: number;
}

export class RequestTrackerAdapter extends KeyedTicketAdapter implements TicketAdapter {
  readonly system = 'RT';
  /** A comment's files are seen by staff only, as the comment. */
  readonly privateNoteFilesArePublic = false;
  readonly noteMarkup = 'plain';
  readonly #config: RequestTrackerConnectorConfig;
  readonly #http: RtHttp;
  readonly #users: RtUsers;
  readonly #messages: RtMessages;
  readonly #closed: Set<string>;
  readonly #pageSize: number;
  #queue: { id: number; name: string } | undefined;

  constructor(config: RequestTrackerConnectorConfig, options: RtAdapterOptions = {}) {
    super(config.url, 'ticket');
    this.#config = config;
    this.#http = new RtHttp(config.url, config, config.timeout_ms);
    this.#users = new RtUsers(this.#http, options.logger);
    this.#messages = new RtMessages(this.#http);
    this.#closed = new Set(config.closed_statuses);
    this.#pageSize = options.pageSize ?? PAGE;
  }

  get host(): string {
    return this.#http.host;
  }

  async connect(signal: AbortSignal): Promise<TicketPerson> {
    const self = await this.#whoAmI(signal);
    await this.#queueOf(signal);
    return self;
  }

  async #whoAmI(signal: AbortSignal): Promise<TicketPerson> {
    this.self ??= await this.#users.self(this.#config, signal);
    return this.self;
  }

  async #queueOf(signal: AbortSignal): Promise<{ id: number; name: string }> {
    if (this.#queue) return this.#queue;
    const wanted = String(this.#config.queue);
    const response = await this.#http.get(`/queue/${encodeURIComponent(wanted)}`, {}, signal).catch((err: unknown) => {
      if (err instanceof TicketSystemError && (err.status === 404 || err.status === 403)) {
        throw new TicketSystemError(`RT at ${this.host} has no queue "${wanted}" the gateway user may see (${err.status}: give it SeeQueue and ShowTicket there)`, { status: err.status, answer: err.answer });
      }
      throw err;
    });
    const queue = this.#parse(Queue, response.json, `queue/${wanted}`);
    this.#queue = { id: queue.id, name: queue.Name };
    return this.#queue;
  }

  async listChanges(since: string | undefined, signal: AbortSignal): Promise<ChangeList> {
    const queue = await this.#queueOf(signal);
    if (since === undefined) {
      // From now on: only RT's clock is wanted.
      const response = await this.#http.get('/tickets', { query: `Queue = ${queue.id}`, per_page: 1, fields: 'LastUpdated' }, signal);
      const clock = response.date?.getTime() ?? this.#http.clockNow();
      if (clock === undefined) throw new TicketSystemError(`RT at ${this.host} answers without a Date header: its clock is unknown (is a proxy removing it?)`);
      return { changes: [], nextSince: iso(clock - OVERLAP_MS) };
    }
    const start = Date.parse(since);
    const roundStart = await this.#clock(signal);
    const changes = new Map<string, { id: string; updatedAt: string; at: number }>();
    const note = (id: string, updatedAt: string) => {
      const at = Date.parse(updatedAt);
      if (at < start) return; // within the wider bound only
      changes.delete(id);
      changes.set(id, { id, updatedAt, at });
    };
    // Keyset paging: each page asks again from the last LastUpdated seen, so a ticket changed between two
    // requests (moving to the end) shifts no other past a page boundary; only a page of one LastUpdated pages on.
    let from = start;
    for (let page = 1; ; ) {
      const query = `Queue = ${queue.id} AND LastUpdated >= '${await this.#relative(from, signal)}'`;
      const list = this.#parse(TicketList, (await this.#http.get('/tickets', { query, orderby: 'LastUpdated', order: 'ASC', per_page: this.#pageSize, page, fields: 'LastUpdated' }, signal)).json, 'tickets');
      for (const item of list.items) note(item.id, item.LastUpdated);
      if (list.items.length < this.#pageSize) break;
      const last = Date.parse(list.items.at(-1)!.LastUpdated);
      if (last > from) [from, page] = [last, 1];
      else page += 1;
    }
    if (this.#closed.has('deleted')) for (const t of await this.#deletions(queue.id, start, signal)) note(t.ObjectId!, t.Created);
    const ordered = [...changes.values()].sort((a, b) => a.at - b.at).map(({ id, updatedAt }) => ({ id, updatedAt }));
    return { changes: ordered, nextSince: iso(Math.max(start, roundStart - OVERLAP_MS)) };
  }

  /** Tickets of the queue deleted at or after `from`: their Status transactions to `deleted` (a ticket search never shows them). */
  async #deletions(queueId: number, from: number, signal: AbortSignal) {
    const query = `ObjectType = 'RT::Ticket' AND TicketQueue = ${queueId} AND Type = 'Status' AND NewValue = 'deleted' AND Created >= '${await this.#relative(from, signal)}'`;
    return (await this.#transactions(query, signal)).filter((t) => t.ObjectId !== undefined);
  }

  /** RT's clock now (from its latest Date header; asked for when none came yet). */
  async #clock(signal: AbortSignal): Promise<number> {
    const now = this.#http.clockNow();
    if (now !== undefined) return now;
    await this.#http.get('/rt', {}, signal);
    const asked = this.#http.clockNow();
    if (asked === undefined) throw new TicketSystemError(`RT at ${this.host} answers without a Date header: its clock is unknown (is a proxy removing it?)`);
    return asked;
  }

  /** `from` as a bound RT reads against its own clock: `-N seconds`, N counted from RT's clock and a little wider. */
  async #relative(from: number, signal: AbortSignal): Promise<string> {
    const seconds = Math.max(0, Math.ceil(((await this.#clock(signal)) - from) / 1000)) + WIDER_S;
    return `-${seconds} seconds`;
  }

  /** Every transaction a TxnSQL query finds, oldest first; rows the user may not see are dropped after paging, so only an empty page ends it. */
  async #transactions(query: string, signal: AbortSignal) {
    const out = [];
    for (let page = 1; ; page += 1) {
      const fields = 'Type,Creator,Created,ObjectId,Field,OldValue,NewValue';
      const list = this.#parse(TransactionList, (await this.#http.get('/transactions', { query, orderby: 'id', order: 'ASC', per_page: PAGE, page, fields }, signal)).json, 'transactions');
      out.push(...list.items);
      if (list.count === 0) break;
    }
    return out;
  }

  async readTicket(id: string, signal: AbortSignal): Promise<Ticket> {
    await this.#whoAmI(signal);
    const response = await this.#http.get(`/ticket/${encodeURIComponent(id)}`, {}, signal);
    const ticket = this.#parse(RtTicket, response.json, `ticket/${id}`);
    const types = READ_TYPES.map((t) => `Type = '${t}'`).join(' OR ');
    const transactions = await this.#transactions(`ObjectType = 'RT::Ticket' AND ObjectId = ${ticket.id} AND (${types})`, signal);
    const messages = new Map<string, RtMessage>();
    for (const t of transactions) if (t.Type !== 'Status') messages.set(t.id, await this.#messages.of(t.id, signal));
    const logins = new Set([ticket.Creator.id, ...ticket.Requestor.map((r) => r.id), ...transactions.map((t) => t.Creator.id)]);
    const people = new Map<string, TicketPerson>();
    for (const login of logins) people.set(login, await this.#users.person(login, signal));
    return ticketOf({
      ticket,
      transactions,
      messages,
      people,
      webUrl: `${this.#config.url}/Ticket/Display.html?id=${ticket.id}`,
      closedStatuses: this.#closed,
      // LastUpdated has whole seconds: a change in the second of this read could carry the same one.
      settled: response.date !== undefined && response.date.getTime() - Date.parse(ticket.LastUpdated) >= SETTLE_MS,
    });
  }

  /** The bytes of an attachment row (`GET /attachment/:id`, base64 in JSON), refused past `maxBytes`. */
  async downloadAttachment(attachment: TicketAttachment, maxBytes: number, signal: AbortSignal): Promise<Buffer> {
    const url = this.#messages.partUrl(attachment.id);
    // base64 with a line end every 76 characters, inside a JSON answer.
    const cap = Math.ceil((maxBytes * 4) / 3 / 76) * 78 + 64 * 1024;
    let json: unknown;
    try {
      json = JSON.parse((await this.#http.download(url, cap, signal)).toString('utf8'));
    } catch (err) {
      // RT answers 500 for an attachment that does not exist, 403 for one the user may not see.
      if (err instanceof TicketSystemError && err.status !== undefined && [403, 404, 500].includes(err.status)) {
        throw new TicketAttachmentUnavailableError(err.message, { status: err.status, answer: err.answer, cause: err });
      }
      if (err instanceof SyntaxError) throw new TicketSystemError(`RT at ${this.host} answered attachment/${attachment.id} with a body that is not JSON`, { malformed: true });
      throw err;
    }
    const content = Buffer.from(this.#parse(Part, json, `attachment/${attachment.id}`).Content ?? '', 'base64');
    if (content.length > maxBytes) throw new TicketAttachmentTooLargeError(`RT at ${this.host}: ${attachment.filename} is larger than the ${maxBytes} bytes allowed`);
    return content;
  }

  /** REST2 takes a reply's files with the reply itself: nothing is sent here, the bytes wait for `addNote`. */
  async uploadAttachment(file: { filename: string; contentType: string; content: Buffer }): Promise<TicketUpload> {
    return { token: file.filename, filename: file.filename, contentType: file.contentType, content: file.content };
  }

  async addNote(ticketId: string, note: { text: string; private: boolean; uploads?: readonly TicketUpload[] }, signal: AbortSignal): Promise<{ entryId: string | undefined }> {
    const attachments = (note.uploads ?? []).map((u) => ({ FileName: headerWord(u.filename), FileType: u.contentType, FileContent: (u.content ?? Buffer.alloc(0)).toString('base64') }));
    const body = { Content: note.text, ContentType: 'text/plain', ...(attachments.length > 0 ? { Attachments: attachments } : {}) };
    const response = await this.#http.post(`/ticket/${encodeURIComponent(ticketId)}/${note.private ? 'comment' : 'correspond'}`, body, signal);
    return { entryId: /\/transaction\/(\d+)$/.exec(response.location ?? '')?.[1] };
  }

  #parse<T extends Parameters<typeof parseAnswer>[0]>(schema: T, json: unknown, what: string) {
    return parseAnswer(schema, json, `RT at ${this.host}`, what);
  }
}

/** A file name RT stores as given: ASCII as is, anything else as an RFC 2047 encoded word (REST2 mangles raw UTF-8). */
function headerWord(name: string): string {
  return /^[\x20-\x7e]*$/.test(name) ? name : `=?UTF-8?B?${Buffer.from(name, 'utf8').toString('base64')}?=`;
}
