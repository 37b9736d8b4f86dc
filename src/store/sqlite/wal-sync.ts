/**
 * The fsync of a group commit, off the event loop. The writer connection runs
 * with `synchronous = NORMAL`: its COMMIT appends the group's frames to the
 * write-ahead log (page cache, no fsync) and returns; the group's callers are
 * answered only after this `fdatasync` of the WAL file, run in libuv's thread
 * pool, returned. That is what `synchronous = FULL` does in WAL mode — one
 * sync of the log after each commit — without the event loop waiting for the
 * disk, so requests keep being parsed (and the next group keeps filling)
 * while it runs. Checkpoints keep SQLite's own syncs (NORMAL syncs the log
 * before a checkpoint and the database file after it).
 *
 * The log file keeps its inode while any connection of this process is open
 * (SQLite deletes it only when the last connection closes), so one file
 * descriptor, opened at the first sync, serves the store's lifetime.
 */
import { closeSync, fdatasync, fdatasyncSync, openSync } from 'node:fs';

export class WalSync {
  readonly #path: string;
  #fd: number | undefined;

  constructor(databasePath: string) {
    this.#path = `${databasePath}-wal`;
  }

  /** Resolves once every frame written to the log so far is on disk. */
  sync(): Promise<void> {
    let fd: number;
    try {
      fd = this.#open();
    } catch (err) {
      return Promise.reject(err as Error);
    }
    return new Promise((resolve, reject) => fdatasync(fd, (err) => (err ? reject(err) : resolve())));
  }

  /** The same, blocking (after a migration, outside the group committer). */
  syncNow(): void {
    fdatasyncSync(this.#open());
  }

  close(): void {
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
  }

  #open(): number {
    this.#fd ??= openSync(this.#path, 'r');
    return this.#fd;
  }
}
