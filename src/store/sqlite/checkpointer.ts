/**
 * WAL checkpoints off the event loop. SQLite's automatic checkpoint runs
 * inside the COMMIT that crosses `wal_autocheckpoint` pages: on the writer's
 * thread, copying a thousand pages and fsyncing the database file while every
 * request waits (about two thirds of a group's COMMIT time under the
 * receiver's load; docs/benchmarks.md at 65810b0, "The write path, second
 * increment"). Here, while the store is written fast, a worker thread with
 * its own connection checkpoints every `intervalMs` instead, and the writer's
 * own automatic checkpoint is raised to `fallbackPages`: it runs only when
 * the worker falls behind (or cannot finish while writes keep coming), so the
 * log stays bounded, and then has little left to copy.
 *
 * The thread runs while the store is written fast (docs/decisions/footprint.md):
 * it starts when `startRows` rows or more changed within a second (what the
 * committed groups changed, read from the writer's `total_changes()`; a claim
 * that found no job changes nothing and adds nothing to the log) and stops
 * once the log stayed fully copied for `idleMs`. Meanwhile the writer keeps
 * SQLite's own automatic checkpoint at its default 1,000 pages: a store
 * written now and then (a mail, a reply) is checkpointed in the COMMIT that
 * crosses them, a few milliseconds every 4 MiB of log, as the commands do. A
 * gateway that waits, or handles a message now and then, holds no thread.
 */
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import type { Logger } from 'pino';

export interface CheckpointerOptions {
  intervalMs?: number;
  /** The writer checkpoints itself past this many log pages (4 KiB each). */
  fallbackPages?: number;
  busyTimeoutMs?: number;
  /** How long the log must stay fully copied before the thread stops (default 30 s). */
  idleMs?: number;
  /** Rows changed within a second that start the thread (default 500). */
  startRows?: number;
  logger?: Pick<Logger, 'warn'>;
}

const WORKER = new URL('./checkpoint-worker.js', import.meta.url);
/** SQLite's own default: the writer checkpoints itself past 1,000 log pages while no thread runs. */
const SQLITE_AUTOCHECKPOINT_PAGES = 1_000;

export class Checkpointer {
  readonly #path: string;
  readonly #writer: Database.Database;
  readonly #o: Required<Omit<CheckpointerOptions, 'logger'>> & Pick<CheckpointerOptions, 'logger'>;
  /** `total_changes()` of the writer: rows changed since it opened. */
  readonly #changes: Database.Statement<[], number>;
  /** What `#changes` read at the last look. */
  #seen = 0;
  /** Rows changed since `#windowStart` (ms), while no thread runs. */
  #windowRows = 0;
  #windowStart = 0;
  #worker: Worker | undefined;
  /** A thread told to stop, until it has ended; a change meanwhile starts the next one after it. */
  #stopping: Promise<void> | undefined;
  #restart = false;
  #closed = false;

  constructor(path: string, writer: Database.Database, options: CheckpointerOptions = {}) {
    this.#path = path;
    this.#writer = writer;
    this.#o = {
      intervalMs: options.intervalMs ?? 100,
      fallbackPages: options.fallbackPages ?? 16_384,
      busyTimeoutMs: options.busyTimeoutMs ?? 5_000,
      idleMs: options.idleMs ?? 30_000,
      startRows: options.startRows ?? 500,
      logger: options.logger,
    };
    writer.pragma(`wal_autocheckpoint = ${SQLITE_AUTOCHECKPOINT_PAGES}`);
    this.#changes = writer.prepare<[], number>('SELECT total_changes()').pluck();
    this.#seen = this.#changes.get() as number;
  }

  /** After each committed group: starts the thread when `startRows` rows changed within a second and none runs. */
  committed(): void {
    if (this.#worker !== undefined || this.#closed) return;
    const changes = this.#changes.get() as number;
    if (changes === this.#seen) return;
    const now = performance.now();
    if (now - this.#windowStart > 1_000) {
      this.#windowStart = now;
      this.#windowRows = 0;
    }
    this.#windowRows += changes - this.#seen;
    this.#seen = changes;
    if (this.#windowRows < this.#o.startRows) return;
    this.#windowRows = 0;
    if (this.#stopping !== undefined) this.#restart = true;
    else this.#start();
  }

  /** Whether the thread runs now (tests, benchmarks). */
  get running(): boolean {
    return this.#worker !== undefined;
  }

  /** Stops the thread (after its current round and one more) and waits for it. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#stop();
    await this.#stopping;
  }

  #start(): void {
    const { intervalMs, busyTimeoutMs, idleMs, logger } = this.#o;
    const worker = new Worker(WORKER, {
      workerData: { path: this.#path, intervalMs, busyTimeoutMs, idleRounds: Math.max(1, Math.ceil(idleMs / intervalMs)) },
    });
    worker.unref();
    worker.on('message', (m: { error?: string; idle?: boolean }) => {
      if (m.error) logger?.warn({ error: m.error }, 'background WAL checkpoint failed; the writer checkpoints past its limit');
      if (!m.idle || worker !== this.#worker) return;
      // The log stayed copied for idleMs: nothing was written. What was committed since the thread's last round, it
      // copies at `stop`; what is changed from now on counts towards the next start.
      this.#seen = this.#changes.get() as number;
      this.#stop();
    });
    worker.on('error', (err) => logger?.warn({ err }, 'the WAL checkpoint thread stopped; the writer checkpoints past its limit'));
    this.#worker = worker;
    this.#writer.pragma(`wal_autocheckpoint = ${this.#o.fallbackPages}`);
  }

  #stop(): void {
    const worker = this.#worker;
    if (worker === undefined) return;
    this.#worker = undefined;
    if (this.#writer.open) this.#writer.pragma(`wal_autocheckpoint = ${SQLITE_AUTOCHECKPOINT_PAGES}`);
    // Held while it winds down: an unref'd thread would let a stopping process end before it did.
    worker.ref();
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage('stop');
    const timer = setTimeout(() => void worker.terminate(), 2_000);
    this.#stopping = exited.then(() => {
      clearTimeout(timer);
      this.#stopping = undefined;
      if (this.#restart && !this.#closed) {
        this.#restart = false;
        this.#start();
      }
    });
  }
}
