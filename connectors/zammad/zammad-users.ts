/**
 * Zammad's users as `TicketPerson`s: articles and tickets name people by id
 * (`created_by_id`, `customer_id`), so each id is looked up once
 * (`GET /users/{id}`, kept for ten minutes) for its name and e-mail address.
 * An agent may read every user; when Zammad refuses one (403/404: deleted,
 * or the gateway user is no agent), the person is named by id (logged once).
 *
 * The gateway's own user is `GET /users/me?expand=true`, which also names the
 * groups it may work in and how (`{"Support": ["full"]}`).
 */
import type { Logger } from '../../src/connector/api.ts';
import { TicketSystemError, type TicketPerson } from '../ticket/ticket-adapter.ts';
import { parseAnswer } from '../ticket/ticket-http.ts';
import type { ZammadHttp } from './zammad-http.ts';
import { User, type ZammadUser } from './zammad-schemas.ts';

const KEEP_MS = 10 * 60_000;

export class ZammadUsers {
  readonly #http: ZammadHttp;
  readonly #logger: Logger | undefined;
  readonly #known = new Map<string, { person: Promise<TicketPerson>; until: number }>();
  #warned = false;

  constructor(http: ZammadHttp, logger: Logger | undefined) {
    this.#http = http;
    this.#logger = logger;
  }

  /** The token's user, with the groups it may work in. */
  async me(signal: AbortSignal): Promise<{ person: TicketPerson; groups: Record<string, string[]> }> {
    const json = (await this.#http.get('/users/me', { expand: 'true' }, signal)).json;
    const user = parseAnswer(User, json, `Zammad at ${this.#http.host}`, 'users/me');
    return { person: personOf(user), groups: user.groups ?? {} };
  }

  /** The person of a user id. */
  person(id: number, signal: AbortSignal): Promise<TicketPerson> {
    const key = String(id);
    const known = this.#known.get(key);
    if (known && known.until > Date.now()) return known.person;
    const person = this.#read(key, signal).catch((err: unknown) => {
      this.#known.delete(key);
      if (err instanceof TicketSystemError && (err.status === 403 || err.status === 404)) return this.#fallback(key, err);
      throw err;
    });
    this.#known.set(key, { person, until: Date.now() + KEEP_MS });
    return person;
  }

  async #read(id: string, signal: AbortSignal): Promise<TicketPerson> {
    const json = (await this.#http.get(`/users/${id}`, {}, signal)).json;
    return personOf(parseAnswer(User, json, `Zammad at ${this.#http.host}`, `users/${id}`));
  }

  #fallback(id: string, err: TicketSystemError): TicketPerson {
    if (!this.#warned) {
      this.#warned = true;
      this.#logger?.warn({ host: this.#http.host, status: err.status }, 'Zammad does not show a user to the gateway user (is it an agent?): such people are named by id only');
    }
    return { id, name: `Zammad user ${id}` };
  }
}

function personOf(user: ZammadUser): TicketPerson {
  const name = [user.firstname, user.lastname].map((s) => s?.trim() ?? '').filter(Boolean).join(' ') || user.login?.trim() || user.email?.trim() || `Zammad user ${user.id}`;
  return { id: String(user.id), name, ...(user.email ? { email: user.email } : {}) };
}
