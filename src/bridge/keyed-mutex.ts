/**
 * Runs async work one at a time per key (a thread's platform calls must not
 * overlap, or their messages could arrive out of order), any number of keys
 * at once. Keys without waiters are forgotten.
 */
export class KeyedMutex {
  readonly #tails = new Map<string, Promise<void>>();

  /**
   * Runs `fn` when the work before it on `key` is over. With `holdUntil`, the
   * next one waits for that promise too (settled either way): `fn` has
   * returned but what it left to record is not committed yet.
   */
  async run<T>(key: string, fn: () => Promise<T>, holdUntil?: Promise<unknown>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = previous.then(() => mine);
    this.#tails.set(key, tail);
    await previous;
    try {
      return await fn();
    } finally {
      const done = () => {
        release();
        if (this.#tails.get(key) === tail) this.#tails.delete(key);
      };
      if (holdUntil) void holdUntil.then(done, done);
      else done();
    }
  }

  get size(): number {
    return this.#tails.size;
  }
}
