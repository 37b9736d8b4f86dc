/**
 * The counterpart's account, in memory: users, brands and groups, tickets
 * with their audits and comments, uploaded files and upload tokens, and a
 * clock. The rules of the Tickets API live here
 * (https://developer.zendesk.com/api-reference/ticketing/tickets/tickets/,
 * …/ticket_comments/, …/ticket_audits/, …/ticket-attachments/):
 *
 * - a ticket is created with its first comment (its description) and each
 *   update is one audit: a `Comment` event (whose id is the comment's id) for
 *   a comment, a `Change` event for each field changed (`status` here);
 * - a comment's `author_id` is the caller's, or the one given by an agent;
 *   an end user's comment is always public;
 * - `updated_at` and `generated_timestamp` move with every update (whole
 *   seconds); a closed ticket takes no update ("closed prevents ticket update");
 * - an upload token (60 minutes) attaches its files to the next comment given it, once.
 *
 * The clock is the machine's plus an offset a test can move (`advance`), so
 * a test can let a minute pass for the incremental export without waiting.
 */
import { randomBytes } from 'node:crypto';
import { notFound, recordInvalid } from './zendesk-errors.ts';

export type Role = 'end-user' | 'agent' | 'admin';
export const STATUSES = ['new', 'open', 'pending', 'hold', 'solved', 'closed'] as const;
export type Status = (typeof STATUSES)[number];

export interface ZdUser { id: number; name: string; email: string; role: Role; apiToken: string | undefined }
export interface ZdFile { id: number; file_name: string; content_type: string; content: Buffer; token: string; deleted: boolean }
export interface ZdComment { id: number; author_id: number; body: string; public: boolean; fileIds: number[]; audit_id: number; created_at: number }
export interface ZdEvent { id: number; type: string; field_name?: string; value?: unknown; previous_value?: unknown }
export interface ZdAudit { id: number; ticket_id: number; author_id: number; created_at: number; events: ZdEvent[] }
export interface ZdTicket {
  id: number;
  subject: string;
  status: Status;
  requester_id: number;
  submitter_id: number;
  brand_id: number;
  group_id: number | null;
  created_at: number;
  updated_at: number;
  /** Seconds, like Zendesk's: moves with every update (the incremental export's order). */
  generated_timestamp: number;
  auditIds: number[];
  commentIds: number[];
}

export interface CommentInput { body?: unknown; public?: unknown; author_id?: unknown; uploads?: unknown }
export interface TicketInput { subject?: unknown; comment?: CommentInput; requester_id?: unknown; status?: unknown; brand_id?: unknown; group_id?: unknown }

export class Clock {
  #offsetMs = 0;
  now(): number {
    return Date.now() + this.#offsetMs;
  }
  /** Now in whole seconds, as Zendesk stamps records. */
  seconds(): number {
    return Math.floor(this.now() / 1000);
  }
  advance(ms: number): void {
    this.#offsetMs += ms;
  }
}

export class ZendeskStore {
  readonly clock = new Clock();
  readonly users = new Map<number, ZdUser>();
  readonly brands = new Map<number, string>([[360_000_001, 'Acme'], [360_000_002, 'Acme Labs']]);
  readonly groups = new Map<number, string>([[360_100_001, 'Support'], [360_100_002, 'Billing']]);
  readonly defaultBrand = 360_000_001;
  readonly tickets = new Map<number, ZdTicket>();
  readonly audits = new Map<number, ZdAudit>();
  readonly comments = new Map<number, ZdComment>();
  readonly files = new Map<number, ZdFile>();
  readonly uploads = new Map<string, { fileIds: number[]; expiresAt: number; used: boolean }>();
  #nextId = 9_000_000_000;

  nextId(): number {
    return (this.#nextId += 1 + Math.floor(Math.random() * 3));
  }

  addUser(name: string, email: string, role: Role, apiToken?: string): ZdUser {
    const user = { id: this.nextId(), name, email, role, apiToken };
    this.users.set(user.id, user);
    return user;
  }

  ticket(id: number): ZdTicket {
    const ticket = this.tickets.get(id);
    if (!ticket) throw notFound();
    return ticket;
  }

  /** Stores an uploaded file under a token (a new one, or `token` to add it to an earlier upload). */
  upload(filename: string, contentType: string, content: Buffer, token?: string): { token: string; file: ZdFile } {
    const file: ZdFile = { id: this.nextId(), file_name: filename, content_type: contentType, content, token: randomBytes(12).toString('hex'), deleted: false };
    this.files.set(file.id, file);
    const existing = token === undefined ? undefined : this.uploads.get(token);
    const key = existing && !existing.used ? token! : randomBytes(12).toString('base64url');
    const entry = this.uploads.get(key) ?? { fileIds: [], expiresAt: this.clock.now() + 3_600_000, used: false };
    entry.fileIds.push(file.id);
    this.uploads.set(key, entry);
    return { token: key, file };
  }

  create(actor: ZdUser, input: TicketInput): { ticket: ZdTicket; audit: ZdAudit } {
    const requester = input.requester_id === undefined ? actor : this.users.get(Number(input.requester_id));
    if (!requester) throw recordInvalid('requester', 'Requester: is invalid');
    const body = typeof input.comment?.body === 'string' ? input.comment.body : '';
    if (body.trim() === '') throw recordInvalid('description', 'Description: cannot be blank');
    const status = this.#status(input.status, 'new');
    const brand = input.brand_id === undefined ? this.defaultBrand : Number(input.brand_id);
    if (!this.brands.has(brand)) throw recordInvalid('brand_id', 'Brand: is invalid');
    const group = input.group_id === undefined || input.group_id === null ? null : Number(input.group_id);
    if (group !== null && !this.groups.has(group)) throw recordInvalid('group', 'Group: is invalid');
    const now = this.clock.now();
    const ticket: ZdTicket = {
      id: this.nextId(),
      subject: typeof input.subject === 'string' && input.subject.trim() !== '' ? input.subject : body.split('\n')[0]!.slice(0, 150),
      status,
      requester_id: requester.id,
      submitter_id: actor.id,
      brand_id: brand,
      group_id: group,
      created_at: now,
      updated_at: now,
      generated_timestamp: Math.floor(now / 1000),
      auditIds: [],
      commentIds: [],
    };
    this.tickets.set(ticket.id, ticket);
    const audit = this.#audit(ticket, actor, now);
    this.#comment(ticket, audit, actor, input.comment ?? {});
    for (const [field_name, value] of [['subject', ticket.subject], ['status', status], ['requester_id', requester.id], ['brand_id', brand], ['group_id', group]] as const) {
      audit.events.push({ id: this.nextId(), type: 'Create', field_name, value });
    }
    return { ticket, audit };
  }

  update(actor: ZdUser, id: number, input: TicketInput): { ticket: ZdTicket; audit: ZdAudit } {
    const ticket = this.ticket(id);
    if (ticket.status === 'closed') throw recordInvalid('status', 'Status: closed prevents ticket update');
    const status = input.status === undefined ? ticket.status : this.#status(input.status, ticket.status);
    if (input.comment !== undefined && (typeof input.comment.body !== 'string' || input.comment.body.trim() === '')) throw recordInvalid('comment', 'Comment: cannot be blank');
    const now = this.clock.now();
    const audit = this.#audit(ticket, actor, now);
    if (input.comment !== undefined) this.#comment(ticket, audit, actor, input.comment);
    if (status !== ticket.status) {
      audit.events.push({ id: this.nextId(), type: 'Change', field_name: 'status', value: status, previous_value: ticket.status });
      ticket.status = status;
    }
    ticket.updated_at = now;
    ticket.generated_timestamp = Math.floor(now / 1000);
    return { ticket, audit };
  }

  #status(value: unknown, fallback: Status): Status {
    if (value === undefined) return fallback;
    if (typeof value !== 'string' || !(STATUSES as readonly string[]).includes(value)) throw recordInvalid('status', 'Status: is not valid');
    return value as Status;
  }

  #audit(ticket: ZdTicket, actor: ZdUser, at: number): ZdAudit {
    const audit: ZdAudit = { id: this.nextId(), ticket_id: ticket.id, author_id: actor.id, created_at: at, events: [] };
    this.audits.set(audit.id, audit);
    ticket.auditIds.push(audit.id);
    return audit;
  }

  #comment(ticket: ZdTicket, audit: ZdAudit, actor: ZdUser, input: CommentInput): void {
    const authorId = actor.role !== 'end-user' && input.author_id !== undefined ? Number(input.author_id) : actor.id;
    if (!this.users.has(authorId)) throw recordInvalid('comment', 'Author: is invalid');
    const tokens = Array.isArray(input.uploads) ? input.uploads.filter((t): t is string => typeof t === 'string') : [];
    const fileIds: number[] = [];
    for (const token of tokens) {
      const upload = this.uploads.get(token);
      // An unknown, used or expired token attaches nothing.
      if (!upload || upload.used || upload.expiresAt < this.clock.now()) continue;
      upload.used = true;
      fileIds.push(...upload.fileIds);
    }
    const comment: ZdComment = {
      id: this.nextId(),
      author_id: authorId,
      body: String(input.body).replace(/\r\n?/g, '\n'),
      public: actor.role === 'end-user' ? true : input.public !== false,
      fileIds,
      audit_id: audit.id,
      created_at: audit.created_at,
    };
    this.comments.set(comment.id, comment);
    ticket.commentIds.push(comment.id);
    audit.events.push({ id: comment.id, type: 'Comment' });
  }
}
