/**
 * A Zammad for tests: the counterpart server (zammad-server.ts) seeded with
 * the people a help desk has, and helpers that act as them through Zammad's
 * own REST API with their own tokens, never through the adapter:
 *
 *   the gateway  an agent of the gateway's own (its token goes into the connector's settings)
 *   Ann          a customer: opens tickets on the web with files, answers
 *   Sam          a staff agent: public and internal notes, closes, reopens, merges
 *
 * `newGroup()` makes a fresh group both agents have full access to, so each
 * test has a queue of its own.
 *
 * The counterpart follows Zammad's published reference (each file names the
 * pages it follows, and where the reference is silent, Zammad's source):
 *
 *   https://docs.zammad.org/en/latest/api/intro.html               authentication, expand, pagination, sorting
 *   https://docs.zammad.org/en/latest/api/ticket/index.html        tickets: search, show, create, update
 *   https://docs.zammad.org/en/latest/api/ticket/articles.html     articles: by ticket, create with attachments, attachment download
 *   https://docs.zammad.org/en/latest/api/ticket/states.html       states (and their types with expand)
 *   https://docs.zammad.org/en/latest/api/user.html                users/me, users/{id}
 *   https://user-docs.zammad.org/en/latest/advanced/search.html    the search syntax (group.name, ranges, AND)
 *   https://github.com/zammad/zammad (app/controllers, app/models, lib/search_index_backend.rb,
 *     config/routes/ticket.rb, config/initializers/rack_attack.rb, contrib/nginx/zammad.conf)
 *       error bodies, page sizes, `*` removed from queries, refused queries answered empty,
 *       `/ticket_history/{id}` (a route of the web app the reference does not list), 50M body limit
 */
import { startZammadServer, type ZammadServer } from './zammad-server.ts';
import type { ZUser } from './zammad-model.ts';

export interface ZammadFile {
  filename: string;
  contentType: string;
  bytes: Buffer;
}

export class ZammadHttpError extends Error {
  readonly status: number;
  readonly body: string;
  constructor(status: number, body: string, what: string) {
    super(`${what}: ${status} ${body.slice(0, 200)}`);
    this.status = status;
    this.body = body;
  }
}

/** A user of the counterpart, calling its API with that user's token. */
export class ZammadClient {
  readonly url: string;
  readonly token: string;
  readonly user: ZUser;

  constructor(url: string, token: string, user: ZUser) {
    this.url = url;
    this.token = token;
    this.user = user;
  }

  async call<T = any>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(`${this.url}/api/v1${path}`, {
      method,
      headers: { authorization: `Token token=${this.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new ZammadHttpError(response.status, text, `${method} ${path}`);
    return (text === '' ? undefined : JSON.parse(text)) as T;
  }

  /** Opens a ticket in `group` with a first article and its files; resolves the ticket id. */
  async openTicket(group: string, ticket: { title: string; body: string; files?: readonly ZammadFile[]; contentType?: string }): Promise<number> {
    const article = { body: ticket.body, type: 'web', content_type: ticket.contentType ?? 'text/plain', internal: false, attachments: files(ticket.files) };
    return (await this.call<{ id: number }>('POST', '/tickets', { title: ticket.title, group, article })).id;
  }

  /** A public article (a customer's web answer, an agent's public note), with its files; resolves the article id. */
  async reply(ticketId: number, body: string, options: { files?: readonly ZammadFile[]; contentType?: string; type?: string } = {}): Promise<number> {
    const article = { ticket_id: ticketId, body, type: options.type ?? 'note', internal: false, content_type: options.contentType ?? 'text/plain', attachments: files(options.files) };
    return (await this.call<{ id: number }>('POST', '/ticket_articles', article)).id;
  }

  /** An internal note (agents only). */
  async internalNote(ticketId: number, body: string): Promise<number> {
    return (await this.call<{ id: number }>('POST', '/ticket_articles', { ticket_id: ticketId, body, type: 'note', internal: true, content_type: 'text/plain' })).id;
  }

  async setState(ticketId: number, state: string): Promise<void> {
    await this.call('PUT', `/tickets/${ticketId}`, { state });
  }

  /** The ticket's articles as this user sees them. */
  async articles(ticketId: number): Promise<any[]> {
    return this.call<any[]>('GET', `/ticket_articles/by_ticket/${ticketId}`);
  }

  async download(ticketId: number, articleId: number, fileId: number): Promise<Buffer> {
    const response = await fetch(`${this.url}/api/v1/ticket_attachment/${ticketId}/${articleId}/${fileId}`, { headers: { authorization: `Token token=${this.token}` } });
    if (!response.ok) throw new ZammadHttpError(response.status, await response.text(), 'download');
    return Buffer.from(await response.arrayBuffer());
  }
}

const files = (list: readonly ZammadFile[] = []) => list.map((f) => ({ filename: f.filename, data: f.bytes.toString('base64'), 'mime-type': f.contentType }));

export interface TestZammad {
  url: string;
  server: ZammadServer;
  gateway: ZammadClient;
  customer: ZammadClient;
  staff: ZammadClient;
  /** A fresh group the gateway and Sam have full access to; resolves its name. */
  newGroup(): Promise<string>;
  close(): Promise<void>;
}

let groups = 0;

export async function startZammad(): Promise<TestZammad> {
  const server = await startZammadServer();
  const { store } = server;
  const person = (login: string, firstname: string, lastname: string, roles: ('Agent' | 'Customer' | 'Admin')[]) => {
    const user = store.addUser({ login, firstname, lastname, email: login, roles });
    return new ZammadClient(server.url, store.addToken(user.id), user);
  };
  const gateway = person('threadgate@desk.example.com', 'Threadgate', 'Gateway', ['Agent']);
  const customer = person('ann@customer.example.com', 'Ann', 'Customer', ['Customer']);
  const staff = person('sam@desk.example.com', 'Sam', 'Staff', ['Agent', 'Admin']);
  return {
    url: server.url,
    server,
    gateway,
    customer,
    staff,
    async newGroup() {
      const group = store.addGroup(`Desk ${++groups} ${Math.random().toString(36).slice(2, 6)}`);
      gateway.user.groups[group.id] = ['full'];
      staff.user.groups[group.id] = ['full'];
      return group.name;
    },
    close: () => server.close(),
  };
}
