/**
 * The group committer of the benchmarks' floors (receiver-floor.ts,
 * email-floor-posting.ts): the least of what src/store/group-commit.ts does —
 * one group at a time, each caller answered after the COMMIT and the log's
 * fdatasync — without savepoints, listeners, limits or metrics.
 */
import { fdatasync } from 'node:fs';
import type Database from 'better-sqlite3';

/**
 * Every write asked for while the last group was written and synced, in one transaction; each caller answered once
 * the log (`walFd`, the WAL file) is fdatasynced in libuv's pool, off the event loop. One group at a time, as the
 * gateway's: the writes that come while a group syncs form the next one.
 */
export function groupCommitter(db: Database.Database, walFd: number): { write<R>(work: () => R): Promise<R>; groups: number } {
  type Pending = { work: () => unknown; resolve: (r: unknown) => void; reject: (e: unknown) => void };
  let queue: Pending[] = [];
  let busy = false;
  const sync = () => new Promise<void>((resolve, reject) => fdatasync(walFd, (err) => (err ? reject(err) : resolve())));
  const flush = () => {
    const group = queue;
    queue = [];
    committer.groups++;
    const results: unknown[] = [];
    try {
      db.exec('BEGIN IMMEDIATE');
      for (const { work } of group) results.push(work());
      db.exec('COMMIT');
    } catch (error) {
      if (db.inTransaction) db.exec('ROLLBACK');
      for (const g of group) g.reject(error);
      next();
      return;
    }
    sync().then(
      () => group.forEach((g, i) => g.resolve(results[i])),
      (error: unknown) => group.forEach((g) => g.reject(error)),
    ).finally(next);
  };
  const next = () => {
    busy = queue.length > 0;
    if (busy) setImmediate(flush);
  };
  const committer = {
    groups: 0,
    write: <R>(work: () => R) =>
      new Promise<R>((resolve, reject) => {
        queue.push({ work, resolve: resolve as (r: unknown) => void, reject });
        if (!busy) {
          busy = true;
          setImmediate(flush);
        }
      }),
  };
  return committer;
}
