/**
 * Zendesk's users as the seam's `TicketPerson`s: who the gateway is
 * (`/users/me`), and the authors of a ticket's comments and changes — from
 * the users a comment page sideloads (`include=users`), else asked for with
 * `/users/show_many` (at most 100 ids a request). Kept in memory (names and
 * addresses change seldom; at most `MAX_KEPT` people, then forgotten).
 */
import { TicketSystemError, type TicketPerson } from '../ticket/ticket-adapter.ts';
import { parseAnswer } from '../ticket/ticket-http.ts';
import type { ZendeskHttp } from './zendesk-http.ts';
import { Me, Users } from './zendesk-schemas.ts';

const MAX_KEPT = 5_000;
const SHOW_MANY = 100;

interface UserRecord {
  id: number | null;
  name?: string | null | undefined;
  email?: string | null | undefined;
}

export interface Self extends TicketPerson {
  role: string;
}

export class ZendeskUsers {
  readonly #http: ZendeskHttp;
  readonly #known = new Map<number, TicketPerson>();

  constructor(http: ZendeskHttp) {
    this.#http = http;
  }

  /** The user the credentials are of; Zendesk takes a request it cannot authenticate as anonymous (id null), which is refused here as a 401. */
  async self(signal: AbortSignal): Promise<Self> {
    const json = (await this.#http.get('/api/v2/users/me.json', {}, signal)).json;
    const { user } = parseAnswer(Me, json, `Zendesk at ${this.#http.host}`, 'users/me');
    if (user.id === null) {
      throw new TicketSystemError(`Zendesk at ${this.#http.host} took the gateway’s request as anonymous: is email the address of the API token’s user?`, { status: 401 });
    }
    const person = this.keep(user)!;
    return { ...person, role: user.role ?? '' };
  }

  /** Notes users Zendesk sent along (a sideload); answers the person of a record with an id. */
  keep(user: UserRecord): TicketPerson | undefined {
    if (user.id === null) return undefined;
    if (this.#known.size >= MAX_KEPT) this.#known.clear();
    const person: TicketPerson = { id: String(user.id), name: user.name?.trim() || `Zendesk user ${user.id}`, ...(user.email ? { email: user.email } : {}) };
    this.#known.set(user.id, person);
    return person;
  }

  /** Looks up the people not known yet (one request per 100). */
  async learn(ids: Iterable<number>, signal: AbortSignal): Promise<void> {
    const missing = [...new Set(ids)].filter((id) => !this.#known.has(id));
    for (let i = 0; i < missing.length; i += SHOW_MANY) {
      const batch = missing.slice(i, i + SHOW_MANY);
      const json = (await this.#http.get('/api/v2/users/show_many.json', { ids: batch.join(',') }, signal)).json;
      for (const user of parseAnswer(Users, json, `Zendesk at ${this.#http.host}`, 'users/show_many').users) this.keep(user);
    }
  }

  /** The person of a user id (a placeholder name for one Zendesk no longer shows, e.g. deleted). */
  person(id: number): TicketPerson {
    return this.#known.get(id) ?? { id: String(id), name: `Zendesk user ${id}` };
  }
}
