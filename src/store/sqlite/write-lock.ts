/**
 * The write lock two connections on one SQLite file share when the writer
 * thread runs beside the main thread's own writer: a ticket lock in shared
 * memory, first come first served, so neither side starves the other and
 * neither ever meets SQLITE_BUSY. A ticket is also the group's place in the
 * file's commit order (commit-order.ts): groups commit in ticket order.
 *
 * The main thread waits without blocking (`Atomics.waitAsync`); the writer
 * thread blocks (`Atomics.wait`), which only stops its own event loop.
 * Should the writer thread die, the main thread gives up its tickets, so
 * their turns pass.
 */

/** The lock's shared memory: [next ticket, ticket now served]. */
export function newWriteLockMemory(): SharedArrayBuffer {
  return new SharedArrayBuffer(8);
}

const NEXT = 0;
const SERVING = 1;

export class WriteLock {
  readonly #cells: Int32Array;
  /** Tickets given up, on this thread's side (giveUp). */
  readonly #givenUp = new Set<number>();

  constructor(memory: SharedArrayBuffer) {
    this.#cells = new Int32Array(memory);
  }

  /** Takes the next ticket: the lock is the caller's once it is served (`waitFor`). */
  take(): number {
    return Atomics.add(this.#cells, NEXT, 1);
  }

  /** Waits (without blocking the thread) until `ticket` holds the lock, handing on the turns of tickets given up. */
  async waitFor(ticket: number): Promise<void> {
    for (;;) {
      const serving = Atomics.load(this.#cells, SERVING);
      if (serving === ticket) return;
      if (this.#givenUp.delete(serving)) {
        this.release();
        continue;
      }
      const waited = Atomics.waitAsync(this.#cells, SERVING, serving);
      if (waited.async) await waited.value;
    }
  }

  /** Blocks the calling thread (a worker's) until it holds the lock; returns the ticket. */
  acquireBlocking(): number {
    const ticket = this.take();
    for (;;) {
      const serving = Atomics.load(this.#cells, SERVING);
      if (serving === ticket) return ticket;
      Atomics.wait(this.#cells, SERVING, serving);
    }
  }

  /**
   * Tickets whose holder is gone (the writer thread died): their turns are handed on, now if one is being served,
   * else by whoever waits when it comes.
   */
  giveUp(tickets: Iterable<number>): void {
    for (const t of tickets) this.#givenUp.add(t);
    for (let serving = this.serving; this.#givenUp.delete(serving); serving = this.serving) this.release();
  }

  /** Hands the lock to the next ticket. Only its holder calls this, once per acquire. */
  release(): void {
    Atomics.add(this.#cells, SERVING, 1);
    Atomics.notify(this.#cells, SERVING);
  }

  /** The ticket that holds the lock, or may take it now. */
  get serving(): number {
    return Atomics.load(this.#cells, SERVING);
  }

  /** Tickets handed out so far (the next one's number). */
  get issued(): number {
    return Atomics.load(this.#cells, NEXT);
  }
}
