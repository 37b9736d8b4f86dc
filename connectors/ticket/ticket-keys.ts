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
