/**
 * RT's users as `TicketPerson`s: REST2 names a transaction's creator and a
 * ticket's requestors by login (`{ type: 'user', id: 'ann' }`), so each login
 * is looked up once (`GET /user/<login>`, kept for ten minutes) for its
 * numeric id — the stable part of a visitor's id, which survives a rename —
 * its real name and its e-mail address.
 *
 * The gateway's own user is learned from its token, which names the user's
 * id (`1-<id>-<hex>`), or from the user name of basic auth. RT shows other
 * users' records only to a privileged user: for an unprivileged gateway
 * user each person falls back to its login (logged once).
 */
import type { Logger } from '../../src/connector/api.ts';
import { TicketSystemError, type TicketPerson } from '../ticket/ticket-adapter.ts';
import { parseAnswer } from '../ticket/ticket-http.ts';
import type { RtHttp } from './rt-http.ts';
import { User } from './rt-schemas.ts';

const KEEP_MS = 10 * 60_000;

export class RtUsers {
  readonly #http: RtHttp;
  readonly #logger: Logger | undefined;
  readonly #known = new Map<string, { person: Promise<TicketPerson>; until: number }>();
  #warned = false;

  constructor(http: RtHttp, logger: Logger | undefined) {
    this.#http = http;
    this.#logger = logger;
  }

  /** The gateway's own user: by the id its token names, else by the basic-auth user name. */
  async self(auth: { token?: string | undefined; user?: string | undefined }, signal: AbortSignal): Promise<TicketPerson> {
    const fromToken = auth.token === undefined ? undefined : /^\d+-(\d+)-/.exec(auth.token)?.[1];
    const name = fromToken ?? auth.user;
    if (name === undefined) throw new TicketSystemError(`RT at ${this.#http.host}: the token does not name its user (expected RT 5's form 1-<user id>-<hex>)`);
    return this.#read(name, signal);
  }

  /** The person of a login (or numeric id) as REST2 names it. */
  person(login: string, signal: AbortSignal): Promise<TicketPerson> {
    const known = this.#known.get(login);
    if (known && known.until > Date.now()) return known.person;
    const person = this.#read(login, signal).catch((err: unknown) => {
      this.#known.delete(login);
      if (err instanceof TicketSystemError && (err.status === 403 || err.status === 404)) return this.#fallback(login, err);
      throw err;
    });
    this.#known.set(login, { person, until: Date.now() + KEEP_MS });
    return person;
  }

  async #read(login: string, signal: AbortSignal): Promise<TicketPerson> {
    const json = (await this.#http.get(`/user/${encodeURIComponent(login)}`, {}, signal)).json;
    const user = parseAnswer(User, json, `RT at ${this.#http.host}`, `user/${login}`);
    const self = user._hyperlinks.find((l) => l.ref === 'self')?.id;
    const id = user.id ?? (typeof self === 'number' || (typeof self === 'string' && /^\d+$/.test(self)) ? Number(self) : undefined);
    return {
      id: id === undefined ? user.Name : String(id),
      name: user.RealName?.trim() || user.Name,
      ...(user.EmailAddress ? { email: user.EmailAddress } : {}),
    };
  }

  #fallback(login: string, err: TicketSystemError): TicketPerson {
    if (!this.#warned) {
      this.#warned = true;
      this.#logger?.warn({ host: this.#http.host, status: err.status }, 'RT does not show its users to the gateway user (make it Privileged): people are named by login only');
    }
    return { id: login, name: login };
  }
}
