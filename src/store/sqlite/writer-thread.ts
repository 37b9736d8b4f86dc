/**
 * The main thread's side of the writer thread (writer-worker.ts): named
 * writes (`WriteCommand`s) posted to it in batches — at the end of the turn
 * that asked for them, or as soon as `postEvery` wait, so the thread starts
 * committing while this one goes on parsing requests — and answered in the
 * file's commit order (commit-order.ts), together with the main thread's own
 * groups. Measured in docs/benchmarks.md ("The writer in a worker thread"):
 * the receiver's write costs the main thread ~4 µs here against ~42 µs on its
 * own connection.
 *
 * Should the thread fail to start or die, its writes still waiting are
 * refused (WriterThreadGoneError: nothing of them was answered as stored),
 * its place in the commit order is given up, and later named writes are
 * refused: the store's health reports it.
 */
import { Worker } from 'node:worker_threads';
import { StoreClosedError, WriterThreadGoneError, WriterThreadWriteError } from '../errors.ts';
import type { GroupSharing } from '../group-commit.ts';
import { CommitOrder } from './commit-order.ts';
import { newWriteLockMemory, WriteLock } from './write-lock.ts';
import type { FromWriter, WireError, WriterData, WriteResult } from './writer-messages.ts';

export interface WriterThreadOptions extends Omit<WriterData, 'lockMemory'> {
  lock: WriteLock;
  lockMemory: SharedArrayBuffer;
  order: CommitOrder;
  /** Tickets the main thread's own writer holds or waits to be told (not the thread's, should it die). */
  mainTickets: ReadonlySet<number>;
  /** A batch goes out once this many writes wait (default 8), else at the end of the turn. */
  postEvery?: number;
  /** Told once if the thread fails or dies. */
  onGone?: (err: Error) => void;
}

interface Waiting {
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
  onCommit: ((result: unknown) => void) | undefined;
}

const WORKER = new URL('./writer-worker.ts', import.meta.url);

export class WriterThread {
  readonly #worker: Worker;
  readonly #o: WriterThreadOptions;
  readonly #postEvery: number;
  readonly #waiting = new Map<number, Waiting>();
  #batch: { id: number; name: string; args: unknown }[] | null = null;
  #nextId = 0;
  #gone: Error | undefined;
  #closing: Promise<void> | undefined;
  #closed: (() => void) | undefined;

  constructor(options: WriterThreadOptions) {
    this.#o = options;
    this.#postEvery = options.postEvery ?? 8;
    const { lock: _lock, order: _order, mainTickets: _main, postEvery: _every, onGone: _gone, ...data } = options;
    this.#worker = new Worker(WORKER, { workerData: data satisfies WriterData });
    this.#worker.on('message', (msg: FromWriter) => this.#onMessage(msg));
    this.#worker.on('error', (err) => this.#die(err));
    this.#worker.on('exit', (code) => {
      this.#closed?.();
      if (this.#closing === undefined) this.#die(new Error(`the writer thread exited with code ${code}`));
    });
  }

  /** Runs the command `name` in the thread's next group; resolves after the commit that holds it. */
  run<R>(name: string, args: unknown, onCommit?: (result: R | undefined) => void): Promise<R> {
    if (this.#gone) return Promise.reject(new WriterThreadGoneError(`the writer thread is gone: ${this.#gone.message}`));
    if (this.#closing) return Promise.reject(new StoreClosedError('the store is closed'));
    return new Promise<R>((resolve, reject) => {
      const id = ++this.#nextId;
      this.#waiting.set(id, { resolve: resolve as (v: unknown) => void, reject, onCommit: onCommit as Waiting['onCommit'] });
      if (this.#batch === null) {
        this.#batch = [];
        setImmediate(() => this.#post());
      }
      this.#batch.push({ id, name, args });
      if (this.#batch.length >= this.#postEvery) this.#post();
    });
  }

  /** Throws WriterThreadGoneError once the thread failed or died (readiness: the store cannot take webhooks). */
  assertAlive(): void {
    if (this.#gone) throw new WriterThreadGoneError(`the writer thread is gone: ${this.#gone.message}`);
  }

  /** Commits what was posted, then ends the thread. */
  close(): Promise<void> {
    this.#post();
    this.#closing ??= this.#gone
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          this.#closed = resolve;
          this.#worker.postMessage({ t: 'close' });
        });
    return this.#closing;
  }

  #post(): void {
    const writes = this.#batch;
    if (writes === null || writes.length === 0) return;
    this.#batch = null;
    if (this.#gone) return;
    this.#worker.postMessage({ t: 'batch', writes });
  }

  #onMessage(msg: FromWriter): void {
    if (msg.t === 'group') this.#o.order.settle(msg.ticket, () => this.#tell(msg.results));
    else if (msg.t === 'failed') this.#die(rebuild(msg.error));
  }

  /** A group's results, in the order its writes ran: each write's `onCommit`, then its caller. */
  #tell(results: readonly WriteResult[]): void {
    for (const r of results) {
      const w = this.#waiting.get(r.id);
      if (!w) continue;
      this.#waiting.delete(r.id);
      const ok = !('error' in r);
      try {
        w.onCommit?.(ok ? r.value : undefined);
      } catch (err) {
        queueMicrotask(() => {
          throw err; // a listener's bug, thrown on its own (as TxSql.settle does)
        });
      }
      if ('error' in r) w.reject(rebuild(r.error));
      else w.resolve(r.value);
    }
  }

  #die(err: Error): void {
    if (this.#gone) return;
    this.#gone = err;
    this.#o.onGone?.(err);
    const refused = new WriterThreadGoneError(`the writer thread is gone: ${err.message}`, { cause: err });
    for (const w of this.#waiting.values()) {
      w.onCommit?.(undefined);
      w.reject(refused);
    }
    this.#waiting.clear();
    // Its tickets will never be told: the main thread's groups after them are not held back.
    const { order, lock, mainTickets } = this.#o;
    const theirs: number[] = [];
    for (let t = order.next; t < lock.issued; t++) if (!mainTickets.has(t)) theirs.push(t);
    for (const t of theirs) order.skip(t);
    lock.giveUp(theirs); // also the one it may have died holding
    void this.#worker.terminate();
  }
}

export interface WriterThreadSettings {
  /** The module whose `WRITE_COMMANDS` the thread runs (a file: URL). */
  commandsUrl: string;
  postEvery?: number;
  onGone?: (err: Error) => void;
}

/**
 * Starts the writer thread on `path` beside the main thread's writer: the thread, and what the main thread's group
 * committer needs to share the file with it (the lock, and telling its groups in commit order).
 */
export function startWriterThread(
  path: string,
  store: { synchronous: 'full' | 'normal'; busyTimeoutMs: number; maxGroup?: number },
  settings: WriterThreadSettings,
): { thread: WriterThread; sharing: GroupSharing } {
  const lockMemory = newWriteLockMemory();
  const lock = new WriteLock(lockMemory);
  const order = new CommitOrder();
  const mainTickets = new Set<number>();
  const sharing: GroupSharing = {
    lock: {
      acquire: async () => {
        const ticket = lock.take();
        mainTickets.add(ticket);
        await lock.waitFor(ticket);
        return ticket;
      },
      release: () => lock.release(),
    },
    settle: (ticket, settle) =>
      order.settle(ticket, () => {
        mainTickets.delete(ticket);
        settle();
      }),
  };
  const thread = new WriterThread({ path, ...store, ...settings, lock, lockMemory, order, mainTickets });
  return { thread, sharing };
}

function rebuild(e: WireError): Error {
  return new WriterThreadWriteError(e.message, e.code, e.name);
}
