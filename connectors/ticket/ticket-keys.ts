/**
 * The keys every ticket adapter gives the gateway, made one way:
 *
 *   thread key   <host><path>/<segment>/<ticket id>   e.g. rt.example.com/ticket/42, acme.zendesk.com/tickets/7
 *   visitor id   <host><path>/users/<person id>
 *
 * `<host><path>` is the system's configured root, so two systems (or two
 * instances of one) never share a key; a ticket id is digits.
 */
import type { TicketPerson } from './ticket-adapter.ts';

export class TicketKeys {
  readonly #base: string;
  readonly #prefix: string;

  /** `url`: the system's root as configured; `segment`: the word before a ticket's id (`issues`, `ticket`). */
  constructor(url: string, segment: string) {
    const root = new URL(url);
    this.#base = `${root.host}${root.pathname.replace(/\/+$/, '')}`;
    this.#prefix = `${this.#base}/${segment}/`;
  }

  threadKey(ticketId: string): string {
    return `${this.#prefix}${ticketId}`;
  }

  /** The ticket id of a thread key made by `threadKey`; undefined for any other key. */
  ticketIdOf(threadKey: string): string | undefined {
    const id = threadKey.startsWith(this.#prefix) ? threadKey.slice(this.#prefix.length) : '';
    return /^\d+$/.test(id) ? id : undefined;
  }

  senderId(person: TicketPerson): string {
    return `${this.#base}/users/${person.id}`;
  }
}

/**
 * What every adapter answers the same way from its keys and the person its
 * credentials sign in as: its thread keys, visitor ids, and which entries
 * are its own. An adapter extends it, sets `self` when it first learns who
 * it is (`connect`), and implements the rest of `TicketAdapter`.
 */
export abstract class KeyedTicketAdapter<Self extends TicketPerson = TicketPerson> {
  readonly #keys: TicketKeys;
  /** The person the adapter's credentials sign in as, once read. */
  protected self: Self | undefined;

  /** `url` and `segment`: as TicketKeys takes them. */
  constructor(url: string, segment: string) {
    this.#keys = new TicketKeys(url, segment);
  }

  /** An entry written by the adapter's own user (the gateway's notes): never forwarded back. */
  isOwnEntry(entry: { author: TicketPerson }): boolean {
    return this.self !== undefined && entry.author.id === this.self.id;
  }

  threadKey(ticketId: string): string {
    return this.#keys.threadKey(ticketId);
  }

  ticketIdOf(threadKey: string): string | undefined {
    return this.#keys.ticketIdOf(threadKey);
  }

  senderId(person: TicketPerson): string {
    return this.#keys.senderId(person);
  }
}
