/**
 * The `TicketAdapter` for Zammad (REST API v1, Zammad 6). A ticket of the
 * configured group is a conversation; its articles and its state changes are
 * its entries (zammad-ticket.ts). Changes are found with the ticket search
 * (zammad-changes.ts: an index that may lag, hence the overlap).
 *
 *   GET  /users/me?expand=true                      the gateway's own user and its groups
 *   GET  /ticket_states?expand=true                 which states end a conversation (closed, merged, removed types)
 *   GET  /tickets/search?query=…                    the group's tickets changed since the cursor
 *   GET  /tickets/{id}?expand=true                  a ticket (also one a trigger's webhook named: `changeOf`)
 *   GET  /ticket_articles/by_ticket/{id}            its articles, with their files listed
 *   GET  /ticket_history/{id}                       its state changes (articles do not record them)
 *   GET  /users/{id}                                the people named (kept for ten minutes)
 *   GET  /ticket_attachment/{ticket}/{article}/{id} a file's bytes
 *   POST /ticket_articles                           an agent reply (email or note), files as base64
 *
 * The gateway's own articles are those its token's user wrote
 * (`created_by_id`); an agent reply is one article by that user, its files
 * in the same request.
 */
import { KeyedTicketAdapter } from '../ticket/ticket-keys.ts';
import type { Logger } from '../../src/connector/api.ts';
import { TicketAttachmentRefusedError, TicketAttachmentUnavailableError, TicketSystemError, type ChangeList, type Ticket, type TicketAdapter, type TicketAttachment, type TicketChange, type TicketPerson, type TicketUpload } from '../ticket/ticket-adapter.ts';
import { parseAnswer } from '../ticket/ticket-http.ts';
import type { ZammadConnectorConfig } from './config.ts';
import { ZammadChanges } from './zammad-changes.ts';
import { ZammadHttp } from './zammad-http.ts';
import { Article, ArticleList, History, StateList, Ticket as TicketRecord } from './zammad-schemas.ts';
import { authorIdOf, ticketOf } from './zammad-ticket.ts';
import { ZammadUsers } from './zammad-users.ts';

/** A read this long after `updated_at` (by Zammad's clock, whole seconds) is settled. */
export const SETTLE_MS = 2_000;
/** The request size Zammad's packaged nginx takes (`client_max_body_size 50M`): a file whose base64 is larger is refused before sending. */
export const BODY_LIMIT_BYTES = 50 * 1024 * 1024;
/** Room in a request for the article's other fields beside one file's base64. */
const REQUEST_SLACK_BYTES = 64 * 1024;
/** State types that end a conversation. */
const CLOSED_TYPES = new Set(['closed', 'merged', 'removed']);
/** Group access that lets the gateway write articles. */
const WRITE_ACCESS = ['full', 'change'];

export interface ZammadAdapterOptions {
  logger?: Logger;
  /** Tickets per page of a search (Zammad's maximum is 200; smaller in tests). */
  pageSize?: number;
}

export class ZammadAdapter extends KeyedTicketAdapter implements TicketAdapter {
  readonly system = 'Zammad';
  /** An internal article's files are as internal as the article. */
  readonly privateNoteFilesArePublic = false;
  readonly privateNoteHint = "Zammad makes every article of a customer public: give the gateway's user the Agent role";
  readonly noteMarkup = 'plain';
  readonly #config: ZammadConnectorConfig;
  readonly #http: ZammadHttp;
  readonly #users: ZammadUsers;
  readonly #changes: ZammadChanges;
  readonly #logger: Logger | undefined;
  #closed: { names: Set<string>; ids: Set<number> } | undefined;
  /** Every state id Zammad listed. */
  #known = new Set<number>();

  constructor(config: ZammadConnectorConfig, options: ZammadAdapterOptions = {}) {
    super(config.url, 'ticket');
    this.#config = config;
    this.#logger = options.logger;
    this.#http = new ZammadHttp(config.url, config.token, config.timeout_ms);
    this.#users = new ZammadUsers(this.#http, options.logger);
    this.#changes = new ZammadChanges(this.#http, { group: config.group, overlapMs: config.search_overlap_seconds * 1000, ...(options.pageSize ? { pageSize: options.pageSize } : {}) });
  }

  get host(): string {
    return this.#http.host;
  }

  async connect(signal: AbortSignal): Promise<TicketPerson> {
    const { person, groups } = await this.#users.me(signal);
    const access = groups[this.#config.group];
    if (access === undefined || access.length === 0) {
      const known = Object.keys(groups);
      const names = known.length > 0 ? `it works in ${known.map((g) => `"${g}"`).join(', ')}` : 'it works in no group: is it an agent?';
      throw new TicketSystemError(`Zammad at ${this.host}: the gateway user has no access to the group "${this.#config.group}" (${names}); give it full access there`, { status: 403 });
    }
    if (!access.some((a) => WRITE_ACCESS.includes(a))) {
      this.#logger?.warn({ host: this.host, group: this.#config.group, access }, 'the gateway user may read the group but not write in it (give it full or change access): agent replies will be refused');
    }
    this.self = person;
    await this.#closedStates(signal, true);
    return person;
  }

  async #whoAmI(signal: AbortSignal): Promise<TicketPerson> {
    this.self ??= (await this.#users.me(signal)).person;
    return this.self;
  }

  /** The states of the closed, merged and removed types (asked again when a ticket names a state not known yet). */
  async #closedStates(signal: AbortSignal, refresh = false): Promise<{ names: Set<string>; ids: Set<number> }> {
    if (this.#closed && !refresh) return this.#closed;
    const states = this.#parse(StateList, (await this.#http.get('/ticket_states', { expand: 'true', per_page: 500 }, signal)).json, 'ticket_states');
    const closed = states.filter((s) => CLOSED_TYPES.has((s.state_type ?? '').toLowerCase()));
    this.#closed = { names: new Set(closed.map((s) => s.name)), ids: new Set(closed.map((s) => s.id)) };
    this.#known = new Set(states.map((s) => s.id));
    return this.#closed;
  }

  listChanges(since: string | undefined, signal: AbortSignal): Promise<ChangeList> {
    return this.#changes.list(since, signal);
  }

  /** A ticket a trigger's webhook named, read directly: the search index may not have it yet. Of the group only. */
  async changeOf(id: string, signal: AbortSignal): Promise<TicketChange | undefined> {
    const json = await this.#http.get(`/tickets/${encodeURIComponent(id)}`, { expand: 'true' }, signal).then(
      (r) => r.json,
      (err: unknown) => {
        if (err instanceof TicketSystemError && (err.status === 404 || err.status === 403)) return undefined;
        throw err;
      },
    );
    if (json === undefined) return undefined;
    const ticket = this.#parse(TicketRecord, json, `tickets/${id}`);
    return ticket.group === this.#config.group ? { id: String(ticket.id), updatedAt: ticket.updated_at } : undefined;
  }

  async readTicket(id: string, signal: AbortSignal): Promise<Ticket> {
    await this.#whoAmI(signal);
    const path = encodeURIComponent(id);
    const response = await this.#http.get(`/tickets/${path}`, { expand: 'true' }, signal);
    const ticket = this.#parse(TicketRecord, response.json, `tickets/${id}`);
    const closed = await this.#closedStates(signal, !this.#known.has(ticket.state_id));
    const articles = this.#parse(ArticleList, (await this.#http.get(`/ticket_articles/by_ticket/${path}`, {}, signal)).json, `ticket_articles/by_ticket/${id}`);
    const history = this.#parse(History, (await this.#http.get(`/ticket_history/${path}`, {}, signal)).json, `ticket_history/${id}`).history;
    const stateChanges = history.filter((h) => h.attribute === 'state');
    const ids = new Set([ticket.customer_id, ...articles.map(authorIdOf), ...stateChanges.map((h) => h.created_by_id)]);
    const people = new Map<number, TicketPerson>();
    for (const userId of ids) people.set(userId, await this.#users.person(userId, signal));
    return ticketOf({
      ticket,
      articles,
      history: stateChanges,
      people,
      closed,
      webUrl: `${this.#config.url}/#ticket/zoom/${ticket.id}`,
      fileUrl: (articleId, fileId) => `${this.#http.baseUrl}/ticket_attachment/${ticket.id}/${articleId}/${fileId}`,
      // The ticket is read before its articles, so a later change carries a later updated_at; Date has whole seconds.
      settled: response.date !== undefined && response.date.getTime() - Date.parse(ticket.updated_at) >= SETTLE_MS,
    });
  }

  /** The bytes of an article's file (`GET /ticket_attachment/{ticket}/{article}/{id}`), refused past `maxBytes`. */
  async downloadAttachment(attachment: TicketAttachment, maxBytes: number, signal: AbortSignal): Promise<Buffer> {
    try {
      return await this.#http.download(attachment.url, maxBytes, signal);
    } catch (err) {
      // 403: the file is not of that article or the ticket is not visible; 404: gone.
      if (err instanceof TicketSystemError && (err.status === 403 || err.status === 404)) {
        throw new TicketAttachmentUnavailableError(err.message, { status: err.status, answer: err.answer, cause: err });
      }
      throw err;
    }
  }

  /** Zammad takes an article's files with the article itself: nothing is sent here, the bytes wait for `addNote`. */
  async uploadAttachment(file: { filename: string; contentType: string; content: Buffer }): Promise<TicketUpload> {
    if (Math.ceil(file.content.length / 3) * 4 + REQUEST_SLACK_BYTES > BODY_LIMIT_BYTES) {
      throw new TicketAttachmentRefusedError(`${file.filename} is too large for a Zammad request (base64 over ${BODY_LIMIT_BYTES} bytes)`, { answer: 'larger than the request size Zammad takes' });
    }
    return { token: file.filename, filename: file.filename, contentType: file.contentType, content: file.content };
  }

  async addNote(ticketId: string, note: { text: string; private: boolean; uploads?: readonly TicketUpload[] }, signal: AbortSignal): Promise<{ entryId: string | undefined }> {
    let type: 'email' | 'note' = note.private ? 'note' : this.#config.replies;
    let mail: { to: string; subject: string } | undefined;
    if (type === 'email') {
      const ticket = this.#parse(TicketRecord, (await this.#http.get(`/tickets/${encodeURIComponent(ticketId)}`, {}, signal)).json, `tickets/${ticketId}`);
      const customer = await this.#users.person(ticket.customer_id, signal);
      if (customer.email) mail = { to: customer.email, subject: ticket.title ?? '' };
      else {
        this.#logger?.warn({ ticket: ticketId }, 'the ticket’s customer has no e-mail address: the reply is a public note instead of an email');
        type = 'note';
      }
    }
    const attachments = (note.uploads ?? []).map((u) => ({ filename: u.filename, data: (u.content ?? Buffer.alloc(0)).toString('base64'), 'mime-type': u.contentType }));
    const body = {
      ticket_id: Number(ticketId),
      body: note.text,
      content_type: 'text/plain',
      type,
      internal: note.private,
      ...mail,
      ...(attachments.length > 0 ? { attachments } : {}),
    };
    const article = this.#parse(Article, (await this.#http.post('/ticket_articles', body, signal)).json, 'ticket_articles');
    return { entryId: String(article.id) };
  }

  #parse<T extends Parameters<typeof parseAnswer>[0]>(schema: T, json: unknown, what: string) {
    return parseAnswer(schema, json, `Zammad at ${this.host}`, what);
  }
}
