/**
 * The Zammad counterpart's data, in memory, and the rules Zammad applies when
 * it is written, after its reference and its controllers:
 *
 *   https://docs.zammad.org/en/latest/api/ticket/index.html      (create, update: `state`, `group` by name; `article`)
 *   https://docs.zammad.org/en/latest/api/ticket/articles.html   (create: `type`, `internal`, `attachments: [{filename, data, mime-type}]`)
 *   https://github.com/zammad/zammad/blob/develop/app/controllers/concerns/creates_ticket_articles.rb
 *       (a customer's article is always a public note; missing body or file keys and bad base64 are 422)
 *   https://github.com/zammad/zammad/blob/develop/app/models/ticket/article/resets_ticket_state.rb
 *       (an agent's communication article moves a new ticket to open)
 *
 * Access as Zammad's policies grant it: an agent sees the tickets of the
 * groups it has `read` or `full` access to (and internal articles), may
 * write with `change` or `full`, open tickets with `create` or `full`; a
 * customer sees and writes only its own tickets and never internal articles.
 * Every change stamps `updated_at` from a clock that never repeats a
 * millisecond, and is taken into the search index `indexLagMs` later.
 */
import { randomBytes } from 'node:crypto';
import type { Role, ZArticle, ZGroup, ZHistory, ZIndexed, ZState, ZStored, ZTicket, ZUser } from './zammad-model.ts';
import { forbidden, notFound, unprocessable } from './zammad-errors.ts';

const STATES: [string, ZState['state_type'], number][] = [
  ['new', 'new', 1], ['open', 'open', 2], ['pending reminder', 'pending reminder', 3], ['closed', 'closed', 5],
  ['merged', 'merged', 6], ['removed', 'removed', 7], ['pending close', 'pending action', 4],
];
/** Article types and whether each is a communication with the customer. */
const TYPES: Record<string, boolean> = { email: true, sms: true, chat: true, fax: true, phone: true, web: false, note: false, 'telegram personal-message': true };

export interface ArticleInput {
  body?: unknown;
  type?: unknown;
  internal?: unknown;
  content_type?: unknown;
  subject?: unknown;
  to?: unknown;
  origin_by_id?: unknown;
  attachments?: unknown;
}

export class ZammadStore {
  readonly users: ZUser[] = [];
  readonly groups: ZGroup[] = [];
  readonly states: ZState[] = STATES.map(([name, type, typeId], i) => ({ id: i + 1, name, state_type: type, state_type_id: typeId, default_create: name === 'new', default_follow_up: name === 'open' }));
  readonly tickets: ZTicket[] = [];
  readonly articles: ZArticle[] = [];
  readonly history: ZHistory[] = [];
  readonly tokens = new Map<string, number>();
  /** How long a change takes to reach the search index. */
  indexLagMs = 0;
  /** Called after a ticket was created or got an article (what a trigger "on create or update" sees): zammad-webhooks.ts. */
  readonly onChange: ((ticket: ZTicket, article: ZArticle | undefined) => void)[] = [];
  #last = 0;
  #ids = { user: 1, group: 0, ticket: 0, article: 0, stored: 0, history: 0 };

  constructor() {
    const at = this.stamp();
    this.users.push({ id: 1, login: '-', firstname: '-', lastname: '', email: '', roles: [], groups: {}, active: false, created_at: at, updated_at: at });
  }

  /** Now as Zammad stamps it: ms, never the same twice. */
  now(): number {
    this.#last = Math.max(Date.now(), this.#last + 1);
    return this.#last;
  }

  stamp(): string {
    return new Date(this.now()).toISOString();
  }

  addGroup(name: string): ZGroup {
    const group = { id: ++this.#ids.group, name };
    this.groups.push(group);
    return group;
  }

  addUser(fields: { login: string; firstname: string; lastname: string; email: string; roles: Role[]; groups?: Record<number, string[]> }): ZUser {
    const at = this.stamp();
    const user: ZUser = { id: ++this.#ids.user, groups: {}, active: true, created_at: at, updated_at: at, ...fields };
    this.users.push(user);
    return user;
  }

  /** A new access token of the user (Profile → Token Access). */
  addToken(userId: number): string {
    const token = randomBytes(32).toString('base64url');
    this.tokens.set(token, userId);
    return token;
  }

  user(id: number): ZUser {
    const user = this.users.find((u) => u.id === id);
    if (!user) throw notFound('User', id);
    return user;
  }

  isAgent = (u: ZUser) => u.roles.includes('Agent');
  access = (u: ZUser, groupId: number, kinds: string[]) => this.isAgent(u) && (u.groups[groupId] ?? []).some((a) => a === 'full' || kinds.includes(a));
  canRead = (u: ZUser, t: ZTicket) => this.access(u, t.group_id, ['read']) || t.customer_id === u.id;
  canWrite = (u: ZUser, t: ZTicket) => this.access(u, t.group_id, ['change']) || t.customer_id === u.id;

  /** The ticket as `actor` may see it: 404 when missing, 403 when not theirs. */
  ticket(actor: ZUser, id: number): ZTicket {
    const ticket = this.tickets.find((t) => t.id === id);
    if (!ticket) throw notFound('Ticket', id);
    if (!this.canRead(actor, ticket)) throw forbidden();
    return ticket;
  }

  visibleArticles(actor: ZUser, ticket: ZTicket): ZArticle[] {
    return this.articles.filter((a) => a.ticket_id === ticket.id && (this.isAgent(actor) || !a.internal)).sort((a, b) => a.id - b.id);
  }

  stateByName(name: unknown): ZState {
    const state = this.states.find((s) => s.name === name);
    if (!state) throw unprocessable(`No lookup value found for 'state': ${JSON.stringify(name)}`);
    return state;
  }

  createTicket(actor: ZUser, input: { title?: unknown; group?: unknown; group_id?: unknown; customer_id?: unknown; state?: unknown; article?: ArticleInput }): ZTicket {
    const group = this.groups.find((g) => g.name === input.group || g.id === Number(input.group_id));
    if (input.group !== undefined && !group) throw unprocessable(`No lookup value found for 'group': ${JSON.stringify(input.group)}`);
    if (!group) throw unprocessable("Group can't be blank");
    if (typeof input.title !== 'string' || input.title.trim() === '') throw unprocessable("Title can't be blank");
    const agent = this.isAgent(actor);
    if (agent && !this.access(actor, group.id, ['create'])) throw forbidden();
    if (!agent && !actor.roles.includes('Customer')) throw forbidden();
    const customerId = agent ? Number(input.customer_id ?? actor.id) : actor.id;
    this.user(customerId);
    const at = this.stamp();
    const state = input.state === undefined ? this.states.find((s) => s.default_create)! : this.stateByName(input.state);
    const ticket: ZTicket = {
      id: ++this.#ids.ticket, number: String(31000 + this.#ids.ticket), title: input.title, group_id: group.id, state_id: state.id, priority_id: 2,
      customer_id: customerId, owner_id: 1, created_by_id: actor.id, updated_by_id: actor.id, created_at: at, updated_at: at, versions: [],
    };
    this.tickets.push(ticket);
    this.#index(ticket);
    if (input.article !== undefined) this.addArticle(actor, ticket, input.article);
    else for (const listener of this.onChange) listener(ticket, undefined);
    return ticket;
  }

  addArticle(actor: ZUser, ticket: ZTicket, input: ArticleInput): ZArticle {
    if (!this.canWrite(actor, ticket)) throw forbidden();
    if (typeof input.body !== 'string') throw unprocessable('Need at least article: { body: "some text" }');
    const agent = this.isAgent(actor);
    const type = input.type === undefined ? 'note' : String(input.type);
    if (!(type in TYPES)) throw unprocessable(`No lookup value found for 'type': ${JSON.stringify(input.type)}`);
    const files = this.#files(input.attachments);
    const at = this.stamp();
    const article: ZArticle = {
      id: ++this.#ids.article, ticket_id: ticket.id,
      type: agent || type === 'web' ? type : 'note',
      sender: agent ? 'Agent' : 'Customer',
      internal: agent ? input.internal === true || input.internal === 'true' : false,
      from: `${actor.firstname} ${actor.lastname}`.trim(), to: typeof input.to === 'string' ? input.to : '', subject: typeof input.subject === 'string' ? input.subject : '',
      body: input.body, content_type: typeof input.content_type === 'string' ? input.content_type : 'text/plain',
      created_by_id: actor.id, updated_by_id: actor.id, origin_by_id: agent && input.origin_by_id != null ? Number(input.origin_by_id) : null,
      created_at: at, updated_at: at,
      attachments: files.map((f) => ({ ...f, id: ++this.#ids.stored })),
    };
    this.articles.push(article);
    if (agent && !article.internal && TYPES[article.type] && this.states.find((s) => s.id === ticket.state_id)?.default_create) {
      this.#setState(actor, ticket, this.states.find((s) => s.default_follow_up)!);
    }
    this.#touch(actor, ticket);
    for (const listener of this.onChange) listener(ticket, article);
    return article;
  }

  updateTicket(actor: ZUser, ticket: ZTicket, input: { state?: unknown; title?: unknown; article?: ArticleInput }): ZTicket {
    if (!this.canWrite(actor, ticket)) throw forbidden();
    if (input.state !== undefined) {
      const state = this.stateByName(input.state);
      if (!this.isAgent(actor) && state.state_type !== 'open' && state.state_type !== 'closed') throw forbidden();
      if (state.id !== ticket.state_id) this.#setState(actor, ticket, state);
    }
    if (typeof input.title === 'string' && input.title.trim() !== '') ticket.title = input.title;
    this.#touch(actor, ticket);
    if (input.article !== undefined) this.addArticle(actor, ticket, input.article);
    return ticket;
  }

  /** The ticket as the index holds it at `now`: its newest version at least `indexLagMs` old (none yet: not found). */
  indexed(ticket: ZTicket, now: number): ZIndexed | undefined {
    return ticket.versions.filter((v) => v.at + this.indexLagMs <= now).at(-1);
  }

  #setState(actor: ZUser, ticket: ZTicket, to: ZState): void {
    const from = this.states.find((s) => s.id === ticket.state_id)!;
    ticket.state_id = to.id;
    this.history.push({
      id: ++this.#ids.history, o_id: ticket.id, object: 'Ticket', type: 'updated', attribute: 'state',
      id_from: from.id, id_to: to.id, value_from: from.name, value_to: to.name, created_by_id: actor.id, created_at: this.stamp(),
    });
  }

  #touch(actor: ZUser, ticket: ZTicket): void {
    ticket.updated_at = this.stamp();
    ticket.updated_by_id = actor.id;
    this.#index(ticket);
  }

  #index(ticket: ZTicket): void {
    ticket.versions.push({ at: this.now(), updated_at: ticket.updated_at, group_id: ticket.group_id, state_id: ticket.state_id, title: ticket.title });
  }

  /** An article's `attachments`, checked as Zammad checks them. */
  #files(list: unknown): Omit<ZStored, 'id'>[] {
    if (list === undefined || list === null) return [];
    if (!Array.isArray(list)) throw unprocessable("Attachment needs 'mime-type' param for attachment with index '0'");
    return list.map((item: Record<string, unknown>, index) => {
      for (const key of ['mime-type', 'filename', 'data']) {
        if (typeof item?.[key] !== 'string' || item[key] === '') throw unprocessable(`Attachment needs '${key}' param for attachment with index '${index}'`);
      }
      const data = (item.data as string).replace(/[\r\n]/g, '');
      if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(data)) throw unprocessable(`Invalid base64 for attachment with index '${index}'`);
      return { filename: item.filename as string, data: Buffer.from(data, 'base64'), preferences: { 'Mime-Type': item['mime-type'] as string } };
    });
  }
}

