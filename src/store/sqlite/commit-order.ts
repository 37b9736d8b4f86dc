/**
 * The order in which the main thread hears about committed groups when two
 * connections write one SQLite file (its own writer and the writer thread's):
 * a group's callers are answered, and its commit listeners told, only after
 * every group with an earlier ticket (write-lock.ts) was. Groups reach this
 * thread by different roads — its own fsync's callback, a message from the
 * writer thread — in any order; what they release (a job taken or claimed
 * starts; a thread's jobs enter its lock in that order) must follow the order
 * in which they committed, as it does with one connection.
 */
export class CommitOrder {
  #next = 0;
  readonly #ready = new Map<number, () => void>();
  readonly #skipped = new Set<number>();

  /** Runs `settle` once every earlier ticket was settled or skipped. */
  settle(ticket: number, settle: () => void): void {
    this.#ready.set(ticket, settle);
    this.#drain();
  }

  /** A ticket that will never be settled (its holder is gone): later ones are not held back by it. */
  skip(ticket: number): void {
    if (ticket >= this.#next) this.#skipped.add(ticket);
    this.#drain();
  }

  /** The ticket the next group to be told must hold. */
  get next(): number {
    return this.#next;
  }

  #drain(): void {
    for (;;) {
      const settle = this.#ready.get(this.#next);
      if (settle !== undefined) {
        this.#ready.delete(this.#next);
        this.#next += 1;
        settle();
      } else if (this.#skipped.delete(this.#next)) {
        this.#next += 1;
      } else {
        return;
      }
    }
  }
}
