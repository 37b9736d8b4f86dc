/**
 * WAL checkpoints off the event loop. SQLite's automatic checkpoint runs
 * inside the COMMIT that crosses `wal_autocheckpoint` pages: on the writer's
 * thread, copying a thousand pages and fsyncing the database file while every
 * request waits (about two thirds of a group's COMMIT time under the
 * receiver's load; docs/benchmarks.md at 65810b0, "The write path, second
 * increment"). Here a worker thread with its own connection checkpoints
 * every `intervalMs` instead, and the writer's own
 * automatic checkpoint is raised to `fallbackPages`: it runs only when the
 * worker falls behind (or cannot finish while writes keep coming), so the
 * log stays bounded, and then has little left to copy.
 */
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import type { Logger } from 'pino';

export interface CheckpointerOptions {
  intervalMs?: number;
  /** The writer checkpoints itself past this many log pages (4 KiB each). */
  fallbackPages?: number;
  busyTimeoutMs?: number;
  logger?: Pick<Logger, 'warn'>;
}

export class Checkpointer {
  readonly #worker: Worker;
  readonly #exited: Promise<void>;

  constructor(path: string, writer: Database.Database, options: CheckpointerOptions = {}) {
    writer.pragma(`wal_autocheckpoint = ${options.fallbackPages ?? 16_384}`);
    this.#worker = new Worker(new URL('./checkpoint-worker.ts', import.meta.url), {
      workerData: { path, intervalMs: options.intervalMs ?? 100, busyTimeoutMs: options.busyTimeoutMs ?? 5_000 },
    });
    this.#worker.unref();
    this.#worker.on('message', (m: { error?: string }) => {
      if (m.error) options.logger?.warn({ error: m.error }, 'background WAL checkpoint failed; the writer checkpoints past its limit');
    });
    this.#worker.on('error', (err) => options.logger?.warn({ err }, 'the WAL checkpoint thread stopped; the writer checkpoints past its limit'));
    this.#exited = new Promise((resolve) => this.#worker.once('exit', () => resolve()));
  }

  /** Stops the thread (after its current round) and waits for it. */
  async close(): Promise<void> {
    // Held while it winds down: an unref'd thread would let a stopping process end before it did.
    this.#worker.ref();
    this.#worker.postMessage('stop');
    const timer = setTimeout(() => void this.#worker.terminate(), 2_000);
    await this.#exited;
    clearTimeout(timer);
  }
}
