/**
 * The receiver floor's store with a job queue (`npm run bench:receiver`, case
 * `floor-jobs`): the least a receiver that delivers through durable jobs does,
 * none of the gateway's code. Beside receiver-floor.ts's store, whose
 * "delivery" is one UPDATE in the next group:
 *
 * - each webhook's row and its job stored in one grouped, synced write (the
 *   transactional outbox);
 * - a runner with the gateway's 32 deliveries in flight: a job is taken in
 *   the write that stores it when a slot is free and none waits (the
 *   gateway's "taken on enqueue"), else claimed with others in one statement
 *   (a grouped write); each job's event read and its JSON parsed back, a
 *   no-op delivery called, then the outcome (the event marked delivered, one
 *   attempt row, the job done) written in one grouped write.
 *
 * No order per thread (the load writes to 64 threads, 32 deliveries in
 * flight), no retries, no backoff, no leases, no logs: each is a cost the
 * gateway has and this floor does not, so what it reaches with its
 * deliveries running is more than a receiver of this design that has them
 * can reach on this machine.
 */
import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { groupCommitter } from '../support/floor-committer.ts';
import type { FloorStore } from './receiver-floor.ts';

/** Deliveries in flight at most: the gateway's `jobs.concurrency` default. */
const IN_FLIGHT = 32;
/** A claim is made once this many slots are free (or none is in flight): claims of a few jobs each cost more. */
const CLAIM_AT = 8;

export function openFloorJobStore(dir: string): FloorStore {
  const db = new Database(join(dir, 'floor-jobs.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL'); // the log synced after each group (floor-committer.ts)
  db.pragma('wal_autocheckpoint = 0');
  db.exec(`
    create table events (id integer primary key, event_id text not null unique, thread_id text, body text not null, status text not null default 'accepted');
    create table jobs (id integer primary key, event integer not null, status text not null default 'queued', run_at integer not null, finished_at integer);
    create index jobs_due on jobs (run_at) where status = 'queued';
    create table attempts (id integer primary key, job integer not null, started_at integer not null, ended_at integer not null, outcome text not null);
  `);
  const insertEvent = db.prepare('insert into events (event_id, thread_id, body) values (?, ?, ?) on conflict (event_id) do nothing returning id');
  const byEvent = db.prepare<[string], { id: number }>('select id from events where event_id = ?');
  const insertJob = db.prepare<[number, number, string], { id: number }>('insert into jobs (event, run_at, status) values (?, ?, ?) returning id');
  const claim = db.prepare<[number, number], { id: number; event: number }>(
    `update jobs set status = 'running' where id in (select id from jobs where status = 'queued' and run_at <= ? order by run_at limit ?) returning id, event`,
  );
  const readEvent = db.prepare<[number], { body: string; thread_id: string }>('select body, thread_id from events where id = ?');
  const markDelivered = db.prepare(`update events set status = 'delivered' where id = ?`);
  const insertAttempt = db.prepare(`insert into attempts (job, started_at, ended_at, outcome) values (?, ?, ?, 'ok')`);
  const jobDone = db.prepare(`update jobs set status = 'done', finished_at = ? where id = ?`);
  const count = db.prepare<[], { stored: number; delivered: number }>(
    `select count(*) as stored, coalesce(sum(status = 'delivered'), 0) as delivered from events`,
  );

  const walFd = openSync(join(dir, 'floor-jobs.db-wal'), 'r');
  const committer = groupCommitter(db, walFd);
  let inFlight = 0;
  let claiming = false;
  /** Jobs stored and not yet done. */
  let open = 0;
  let onDrained: (() => void) | undefined;
  // A failed write leaves its job or event as it was: the benchmark's check (delivered = stored) reports it.
  const finished = () => {
    inFlight -= 1;
    if (--open === 0) onDrained?.();
    pump();
  };
  const run = async (job: { id: number; event: number }) => {
    const started = Date.now();
    const event = readEvent.get(job.event) as { body: string; thread_id: string };
    JSON.parse(event.body); // the delivery parses its event back, as the gateway's does
    await Promise.resolve(); // the delivery itself: nothing sent, as the gateway's no-op connector
    await committer.write(() => {
      markDelivered.run(job.event);
      insertAttempt.run(job.id, started, Date.now());
      jobDone.run(Date.now(), job.id);
    });
  };
  const pump = () => {
    if (claiming || open - inFlight <= 0 || (IN_FLIGHT - inFlight < CLAIM_AT && inFlight > 0)) return;
    claiming = true;
    const room = IN_FLIGHT - inFlight;
    void committer.write(() => claim.all(Date.now(), room)).then(
      (jobs) => {
        claiming = false;
        inFlight += jobs.length;
        for (const job of jobs) void run(job).then(finished, finished);
        if (jobs.length > 0) pump();
      },
      () => (claiming = false),
    );
  };
  return {
    store: async (row) => {
      const { id, taken } = await committer.write(() => {
        const inserted = insertEvent.get(row.eventId, row.threadId, row.body) as { id: number } | undefined;
        if (!inserted) return { id: (byEvent.get(row.eventId) as { id: number }).id, taken: undefined };
        // Taken in the write that stores it, as the gateway's deliveries are, when a slot is free and no job waits for
        // a claim: the commit is the claim. (The counters move inside the write: a failed group would leave them
        // wrong, and the benchmark's check then report it.)
        const take = inFlight < IN_FLIGHT && open === inFlight;
        const job = insertJob.get(inserted.id, Date.now(), take ? 'running' : 'queued') as { id: number };
        open += 1;
        if (take) inFlight += 1;
        return { id: inserted.id, taken: take ? { id: job.id, event: inserted.id } : undefined };
      });
      if (taken) void run(taken).then(finished, finished);
      else pump();
      return id;
    },
    counts: () => ({ ...(count.get() as { stored: number; delivered: number }), groups: committer.groups }),
    drained: () => (open === 0 ? Promise.resolve() : new Promise<void>((resolve) => (onDrained = resolve))),
    close: () => {
      db.close();
      closeSync(walFd);
    },
  };
}
