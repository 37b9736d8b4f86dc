/**
 * The `TicketAdapter` for Jira Service Management (Jira Cloud). A customer
 * request of the configured service desk is a ticket, named by its issue id
 * (stable when the key changes); its comments and status changes are its
 * entries (jsm-ticket.ts).
 *
 *   connect        GET /rest/api/3/myself (who the gateway is, its time zone) and GET /rest/servicedeskapi/servicedesk/{id or key}
 *   listChanges    JQL over GET /rest/api/3/search/jql (jsm-changes.ts)
 *   readTicket     the issue and the request with its lists (jsm-request.ts)
 *   download       GET /rest/api/3/attachment/content/{id}?redirect=false, under the site root
 *   upload         POST /rest/servicedeskapi/servicedesk/{id}/attachTemporaryFile (multipart)
 *   addNote        POST /rest/servicedeskapi/request/{id}/comment {body, public}, or, with files,
 *                  POST /rest/servicedeskapi/request/{id}/attachment {temporaryAttachmentIds, public, additionalComment}
 *
 * The gateway's own comments are those of the account it authenticates as
 * (`myself.accountId`). Comment bodies are Jira wiki markup: a note is sent
 * as plain text headed by the agent's name.
 */
import { KeyedTicketAdapter } from '../ticket/ticket-keys.ts';
import type { Logger } from '../../src/connector/api.ts';
import {
  TicketAttachmentRefusedError,
  TicketAttachmentUnavailableError,
  TicketSystemError,
  type ChangeList,
  type Ticket,
  type TicketAdapter,
  type TicketAttachment,
  type TicketPerson,
  type TicketUpload,
} from '../ticket/ticket-adapter.ts';
import { parseAnswer } from '../ticket/ticket-http.ts';
import type { JsmConnectorConfig } from './config.ts';
import { listChanges, OVERLAP_MS, SEARCH_PAGE } from './jsm-changes.ts';
import { JsmHttp } from './jsm-http.ts';
import { LIST_PAGE, RequestReader } from './jsm-request.ts';
import { CreatedAttachments, CreatedComment, Myself, ServiceDesk, TemporaryFiles } from './jsm-schemas.ts';
import { ticketOf } from './jsm-ticket.ts';
import { knownZone } from './jql-time.ts';

export interface JsmAdapterOptions {
  logger?: Logger;
  /** Requests per search page, items per list page (smaller in tests). */
  searchPageSize?: number;
  listPageSize?: number;
  /** How far behind Jira's clock the cursor stays (default `OVERLAP_MS`, ten minutes). */
  overlapMs?: number;
}

interface Desk {
  id: string;
  projectId: string;
  projectKey: string;
}

export class JsmAdapter extends KeyedTicketAdapter<(TicketPerson & { zone: string | undefined })> implements TicketAdapter {
  readonly system = 'Jira';
  /** An internal comment's files are internal attachments: agents only. */
  readonly privateNoteFilesArePublic = false;
  readonly privateNoteHint = 'the account may only add public comments: make it an agent (a licensed user) of the service desk, or set replies: public';
  readonly noteMarkup = 'plain';
  readonly #config: JsmConnectorConfig;
  readonly #http: JsmHttp;
  readonly #reader: RequestReader;
  readonly #logger: Logger | undefined;
  readonly #searchPageSize: number;
  readonly #overlapMs: number;
  #desk: Desk | undefined;

  constructor(config: JsmConnectorConfig, options: JsmAdapterOptions = {}) {
    super(config.url, 'issue');
    this.#config = config;
    this.#logger = options.logger;
    this.#http = new JsmHttp(config.url, { email: config.email, apiToken: config.api_token }, config.timeout_ms);
    this.#reader = new RequestReader(this.#http, options.listPageSize ?? LIST_PAGE);
    this.#searchPageSize = options.searchPageSize ?? SEARCH_PAGE;
    this.#overlapMs = options.overlapMs ?? OVERLAP_MS;
  }

  get host(): string {
    return this.#http.host;
  }

  async connect(signal: AbortSignal): Promise<TicketPerson> {
    const self = await this.#whoAmI(signal);
    await this.#deskOf(signal);
    return { id: self.id, name: self.name };
  }

  /** The account the API token is of, with its time zone (how Jira reads JQL dates); asked once. */
  async #whoAmI(signal: AbortSignal): Promise<TicketPerson & { zone: string | undefined }> {
    if (this.self) return this.self;
    const me = parseAnswer(Myself, (await this.#http.get('/rest/api/3/myself', {}, signal)).json, `Jira at ${this.host}`, 'myself');
    const zone = knownZone(me.timeZone) ? me.timeZone : undefined;
    if (zone === undefined) {
      this.#logger?.warn({ host: this.host, time_zone: me.timeZone ?? null }, 'Jira does not tell a time zone this gateway knows for its account: searches use bounds relative to Jira’s clock instead');
    }
    this.self = { id: me.accountId, name: me.displayName?.trim() || me.emailAddress || me.accountId, zone };
    return this.self;
  }

  async #deskOf(signal: AbortSignal): Promise<Desk> {
    if (this.#desk) return this.#desk;
    const wanted = this.#config.service_desk;
    const response = await this.#http.get(`/rest/servicedeskapi/servicedesk/${encodeURIComponent(wanted)}`, {}, signal).catch((err: unknown) => {
      if (err instanceof TicketSystemError && (err.status === 404 || err.status === 403)) {
        throw new TicketSystemError(`Jira at ${this.host} has no service desk "${wanted}" the account may see (${err.status}: is it an agent of that service desk?)`, { status: err.status, answer: err.answer });
      }
      throw err;
    });
    const desk = parseAnswer(ServiceDesk, response.json, `Jira at ${this.host}`, `servicedesk/${wanted}`);
    this.#desk = { id: desk.id, projectId: desk.projectId, projectKey: desk.projectKey };
    return this.#desk;
  }

  async listChanges(since: string | undefined, signal: AbortSignal): Promise<ChangeList> {
    const self = await this.#whoAmI(signal);
    const desk = await this.#deskOf(signal);
    return listChanges({ http: this.#http, projectKey: desk.projectKey, zone: self.zone, pageSize: this.#searchPageSize, overlapMs: this.#overlapMs, jiraNow: () => this.#http.clockNow() }, since, signal);
  }

  async readTicket(id: string, signal: AbortSignal): Promise<Ticket> {
    await this.#whoAmI(signal);
    const desk = await this.#deskOf(signal);
    const parts = await this.#reader.read(id, desk.projectId, signal);
    return ticketOf({ ...parts, baseUrl: this.#http.baseUrl });
  }

  /** The file's bytes from under the site root (`redirect=false`: Jira streams them instead of a 303 to its media host). */
  async downloadAttachment(attachment: TicketAttachment, maxBytes: number, signal: AbortSignal): Promise<Buffer> {
    if (!this.#http.owns(attachment.url)) {
      throw new TicketAttachmentUnavailableError(`Jira at ${this.host} names ${attachment.filename} at an address outside the site, where the API token does not go`);
    }
    try {
      return await this.#http.download(attachment.url, maxBytes, signal);
    } catch (err) {
      if (err instanceof TicketSystemError && (err.status === 403 || err.status === 404)) {
        throw new TicketAttachmentUnavailableError(err.message, { status: err.status, answer: err.answer, cause: err });
      }
      if (err instanceof TicketSystemError && err.status !== undefined && err.status >= 300 && err.status <= 399) {
        throw new TicketAttachmentUnavailableError(`${err.message}: Jira sent the file elsewhere (its media host), where the API token does not go`, { status: err.status, cause: err });
      }
      throw err;
    }
  }

  /** A temporary file of the service desk; Jira answers 400 for a file it does not take (over its size limit) and 413 past 60 files. */
  async uploadAttachment(file: { filename: string; contentType: string; content: Buffer }, signal: AbortSignal): Promise<TicketUpload> {
    const desk = await this.#deskOf(signal);
    try {
      const response = await this.#http.postFile(`/rest/servicedeskapi/servicedesk/${desk.id}/attachTemporaryFile`, file, signal);
      const temp = parseAnswer(TemporaryFiles, response.json, `Jira at ${this.host}`, 'attachTemporaryFile').temporaryAttachments[0]!;
      return { token: temp.temporaryAttachmentId, filename: file.filename, contentType: file.contentType };
    } catch (err) {
      if (err instanceof TicketSystemError && (err.status === 400 || err.status === 413)) {
        throw new TicketAttachmentRefusedError(err.message, { status: err.status, answer: err.answer, cause: err });
      }
      throw err;
    }
  }

  async addNote(ticketId: string, note: { text: string; private: boolean; uploads?: readonly TicketUpload[] }, signal: AbortSignal): Promise<{ entryId: string | undefined }> {
    const path = `/rest/servicedeskapi/request/${encodeURIComponent(ticketId)}`;
    const uploads = note.uploads ?? [];
    if (uploads.length === 0) {
      const { json } = await this.#http.post(`${path}/comment`, { body: note.text, public: !note.private }, signal);
      return { entryId: parseAnswer(CreatedComment, json, `Jira at ${this.host}`, 'comment').id };
    }
    // The files and the text in one change: the attachments with the note as their comment.
    const body = { temporaryAttachmentIds: uploads.map((u) => u.token), public: !note.private, additionalComment: { body: note.text } };
    const { json } = await this.#http.post(`${path}/attachment`, body, signal);
    return { entryId: parseAnswer(CreatedAttachments, json, `Jira at ${this.host}`, 'attachment').comment?.id };
  }
}
