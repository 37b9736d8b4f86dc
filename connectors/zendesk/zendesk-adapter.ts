/**
 * The `TicketAdapter` for Zendesk Support (API v2). A ticket of the account
 * (of the configured brand and group, when given) is a conversation; its
 * audits and comments are its entries (zendesk-ticket.ts).
 *
 *   connect       GET /api/v2/users/me (an admin: the export is for admins), the brand and group asked for
 *   listChanges   the incremental ticket export, cursor based (zendesk-changes.ts)
 *   readTicket    GET /api/v2/tickets/{id}, then its audits and its comments (cursor pages of 100,
 *                 `include=users`), then /users/show_many for authors not sideloaded
 *   files         content_url downloads and the Uploads API (zendesk-files.ts)
 *   addNote       PUT /api/v2/tickets/{id} with ticket.comment { body, public, uploads }: one audit,
 *                 whose Comment event is the note
 *
 * The gateway's own comments are those whose `author_id` is the API user's.
 */
import { KeyedTicketAdapter } from '../ticket/ticket-keys.ts';
import type { ZendeskConnectorConfig } from './config.ts';
import { TicketSystemError, type ChangeList, type Ticket, type TicketAdapter, type TicketAttachment, type TicketChange, type TicketPerson, type TicketUpload } from '../ticket/ticket-adapter.ts';
import { parseAnswer, type Query } from '../ticket/ticket-http.ts';
import { exportChanges, startingPoint, type ExportOptions } from './zendesk-changes.ts';
import { downloadFile, uploadFile } from './zendesk-files.ts';
import { ZendeskHttp } from './zendesk-http.ts';
import { AuditPage, Brand, CommentPage, Group, ShowTicket, TicketUpdate } from './zendesk-schemas.ts';
import { ticketOf } from './zendesk-ticket.ts';
import { ZendeskUsers, type Self } from './zendesk-users.ts';

/** A read this long after `updated_at` (by Zendesk's clock) is settled: a later change gets a later `updated_at`. */
export const SETTLE_MS = 2_000;
const PAGE = 100;
const EXPORT_PAGE = 1_000;

export interface ZendeskAdapterOptions {
  /** Tickets per page of the export (Zendesk's maximum, 1000; smaller in tests). */
  exportPageSize?: number;
  /** Comments and audits per page (Zendesk's maximum, 100; smaller in tests). */
  pageSize?: number;
}

export class ZendeskAdapter extends KeyedTicketAdapter<Self> implements TicketAdapter {
  readonly system = 'Zendesk';
  /** An internal note's files are seen by agents only, as the note. */
  readonly privateNoteFilesArePublic = false;
  readonly privateNoteHint = 'the gateway’s Zendesk user must be an agent or admin (an end user cannot write internal notes)';
  /** Zendesk shows a comment's body as it is written. */
  readonly noteMarkup = 'plain';
  readonly #config: ZendeskConnectorConfig;
  readonly #http: ZendeskHttp;
  readonly #users: ZendeskUsers;
  readonly #pageSize: number;
  readonly #export: ExportOptions;
  #checked = false;

  constructor(config: ZendeskConnectorConfig, options: ZendeskAdapterOptions = {}) {
    super(config.root, 'tickets');
    this.#config = config;
    this.#http = new ZendeskHttp(config.root, config, config.timeout_ms);
    this.#users = new ZendeskUsers(this.#http);
    this.#pageSize = options.pageSize ?? PAGE;
    this.#export = { brand: config.brand, group: config.group, perPage: options.exportPageSize ?? EXPORT_PAGE, clock: (signal) => this.#clock(signal) };
  }

  get host(): string {
    return this.#http.host;
  }

  async connect(signal: AbortSignal): Promise<TicketPerson> {
    const self = await this.#whoAmI(signal);
    if (self.role !== 'admin') {
      throw new TicketSystemError(`Zendesk at ${this.host}: the gateway’s user ${self.name} is ${self.role || 'no agent'}, but the incremental ticket export is for admins only: give it the admin role`, { status: 403 });
    }
    if (!this.#checked) {
      if (this.#config.brand !== undefined) await this.#exists(`/api/v2/brands/${this.#config.brand}.json`, Brand, `brand ${this.#config.brand}`, signal);
      if (this.#config.group !== undefined) await this.#exists(`/api/v2/groups/${this.#config.group}.json`, Group, `group ${this.#config.group}`, signal);
      this.#checked = true;
    }
    return { id: self.id, name: self.name, ...(self.email ? { email: self.email } : {}) };
  }

  /** The API user (needed to tell the gateway's own comments, also by a `deliver` before `connect`). */
  async #whoAmI(signal: AbortSignal): Promise<Self> {
    this.self ??= await this.#users.self(signal);
    return this.self;
  }

  async #exists(path: string, schema: typeof Brand | typeof Group, what: string, signal: AbortSignal): Promise<void> {
    const response = await this.#http.get(path, {}, signal).catch((err: unknown) => {
      if (err instanceof TicketSystemError && err.status === 404) throw new TicketSystemError(`Zendesk at ${this.host} has no ${what} (404): give its id as Admin Center shows it`, { status: 404, answer: err.answer });
      throw err;
    });
    parseAnswer(schema, response.json, `Zendesk at ${this.host}`, what);
  }

  /** Zendesk's clock (from its latest `Date` header; asked for when none came yet). */
  async #clock(signal: AbortSignal): Promise<number> {
    if (this.#http.clockNow() === undefined) await this.#http.get('/api/v2/users/me.json', {}, signal);
    const now = this.#http.clockNow();
    if (now === undefined) throw new TicketSystemError(`Zendesk at ${this.host} answers without a Date header: its clock is unknown (is a proxy removing it?)`);
    return now;
  }

  listChanges(since: string | undefined, signal: AbortSignal): Promise<ChangeList> {
    return since === undefined ? startingPoint(this.#export, signal) : exportChanges(this.#http, since, this.#export, signal);
  }

  /** A ticket a webhook named, read directly: the export leaves the last minute out. Of the configured brand and group only. */
  async changeOf(id: string, signal: AbortSignal): Promise<TicketChange | undefined> {
    const json = await this.#http.get(`/api/v2/tickets/${encodeURIComponent(id)}.json`, {}, signal).then(
      (r) => r.json,
      (err: unknown) => {
        if (err instanceof TicketSystemError && (err.status === 404 || err.status === 403)) return undefined;
        throw err;
      },
    );
    if (json === undefined) return undefined;
    const { ticket } = parseAnswer(ShowTicket, json, `Zendesk at ${this.host}`, `tickets/${id}`);
    if (this.#config.brand !== undefined && ticket.brand_id !== this.#config.brand) return undefined;
    if (this.#config.group !== undefined && ticket.group_id !== this.#config.group) return undefined;
    return { id: String(ticket.id), updatedAt: ticket.updated_at };
  }

  async readTicket(id: string, signal: AbortSignal): Promise<Ticket> {
    await this.#whoAmI(signal);
    const ticketId = encodeURIComponent(id);
    const response = await this.#http.get(`/api/v2/tickets/${ticketId}.json`, {}, signal);
    const { ticket } = parseAnswer(ShowTicket, response.json, `Zendesk at ${this.host}`, `tickets/${id}`);
    // Audits first: a comment written meanwhile has no audit in hand yet and waits for the next read.
    const audits = await this.#pages(`/api/v2/tickets/${ticketId}/audits.json`, {}, AuditPage, signal, (page) => page.audits);
    const comments = await this.#pages(`/api/v2/tickets/${ticketId}/comments.json`, { include: 'users' }, CommentPage, signal, (page) => {
      for (const user of page.users) this.#users.keep(user);
      return page.comments;
    });
    await this.#users.learn([ticket.requester_id, ...audits.map((a) => a.author_id), ...comments.map((c) => c.author_id)], signal);
    return ticketOf({
      ticket,
      audits,
      comments,
      person: (userId) => this.#users.person(userId),
      webUrl: `${this.#http.baseUrl}/agent/tickets/${ticket.id}`,
      // updated_at has whole seconds: a change in the second of this read could carry the same one.
      settled: response.date !== undefined && response.date.getTime() - Date.parse(ticket.updated_at) >= SETTLE_MS,
    });
  }

  /** Every item of a cursor-paginated list (`page[size]`, then `page[after]` while `meta.has_more`). */
  async #pages<S extends typeof AuditPage | typeof CommentPage, T>(path: string, query: Query, schema: S, signal: AbortSignal, items: (page: ReturnType<S['parse']>) => T[]): Promise<T[]> {
    const out: T[] = [];
    let after: string | undefined;
    for (;;) {
      const json = (await this.#http.get(path, { ...query, 'page[size]': this.#pageSize, 'page[after]': after }, signal)).json;
      const page = parseAnswer(schema, json, `Zendesk at ${this.host}`, path.replace(/^\/api\/v2\//, '')) as ReturnType<S['parse']>;
      out.push(...items(page));
      const next = page.meta.after_cursor ?? undefined;
      if (!page.meta.has_more || next === undefined || next === after) return out;
      after = next;
    }
  }

  async downloadAttachment(attachment: TicketAttachment, maxBytes: number, signal: AbortSignal): Promise<Buffer> {
    return downloadFile(this.#http, attachment, maxBytes, signal);
  }

  async uploadAttachment(file: { filename: string; contentType: string; content: Buffer }, signal: AbortSignal): Promise<TicketUpload> {
    return { token: await uploadFile(this.#http, file, signal), filename: file.filename, contentType: file.contentType };
  }

  async addNote(ticketId: string, note: { text: string; private: boolean; uploads?: readonly TicketUpload[] }, signal: AbortSignal): Promise<{ entryId: string | undefined }> {
    const uploads = (note.uploads ?? []).map((u) => u.token);
    const comment = { body: note.text, public: !note.private, ...(uploads.length > 0 ? { uploads } : {}) };
    const response = await this.#http.put(`/api/v2/tickets/${encodeURIComponent(ticketId)}.json`, { ticket: { comment } }, signal);
    const { audit } = parseAnswer(TicketUpdate, response.json, `Zendesk at ${this.host}`, `tickets/${ticketId}`);
    const made = audit.events.find((e) => e.type === 'Comment')?.id;
    return { entryId: made == null ? undefined : String(made) };
  }
}
